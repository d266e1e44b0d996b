/* Study modes for Verified PyTorch Interview Prep: "Quiz me" on every page, the review page (SM-2
 * spaced repetition) and the mock interview.
 *
 * The cards come from study/cards.json, which hooks/study_cards.py writes at build time from the
 * rendered pages; the schedule is docs/javascripts/sm2.js. Nothing leaves the browser: the review state
 * lives in localStorage under one versioned key (vpip.review.v1), "Quiz me" under vpip.quiz.v1, and the
 * "I can answer this" marks (vpip.progress.v1, docs/javascripts/drills.js) are only read.
 * Like drills.js: events delegated from `document` and bound once, per-page set-up on Material's
 * `document$` (instant navigation), no inline code, no style attributes (a strict CSP allows it).
 * The clock is `window.__vpipNow()` when a test injects one, else `Date.now()`.
 */
(function () {
  "use strict";

  var REVIEW_KEY = "vpip.review.v1";
  var QUIZ_KEY = "vpip.quiz.v1";
  var PROGRESS_KEY = "vpip.progress.v1";
  var CARDS_URL = "study/cards.json";
  var EXPORT_FORMAT = "vpip-review";
  var RATINGS = [
    ["again", "Again"],
    ["hard", "Hard"],
    ["good", "Good"],
    ["easy", "Easy"],
  ];
  // Presets name modules; a module missing from this build is left out (and said so).
  var PRESETS = {
    phone: { label: "Phone screen", modules: ["Tensors", "Autograd", "Training"], n: 4, minutes: 20 },
    infra: {
      label: "ML-infra onsite",
      modules: ["Data", "Performance", "Distributed", "Systems"],
      n: 6,
      minutes: 45,
    },
    llm: {
      label: "LLM-engineering onsite",
      modules: ["Transformers", "LLMs", "LLM Engineering", "Inference", "Performance", "Distributed", "Systems"],
      n: 6,
      minutes: 45,
    },
  };

  var SM2 = window.VpipSM2;
  var cardsPromise = null;
  var reported = {}; // problems already reported in this page's life (each once)
  var memory = {}; // stored values when localStorage is blocked
  var review = null; // the review session: { cards, queue, current, flipped }
  var mock = null; // the mock interview: { questions, index, ratings, timer, ... }

  function now() {
    return typeof window.__vpipNow === "function" ? window.__vpipNow() : Date.now();
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(className, text) {
    var node = el("button", "drill-button " + className, text);
    node.type = "button";
    return node;
  }

  function html(node, markup) {
    // Build-time HTML from our own study/cards.json (tags limited by hooks/study_cards.py `clean`).
    node.innerHTML = markup;
    return node;
  }

  function siteUrl(path) {
    var scope = window.__md_scope || new URL("/", location.href);
    return new URL(path, scope).href;
  }

  function loadCards() {
    if (!cardsPromise) {
      cardsPromise = fetch(siteUrl(CARDS_URL))
        .then(function (response) {
          if (!response.ok) throw new Error("HTTP " + response.status);
          return response.json();
        })
        .catch(function (error) {
          cardsPromise = null;
          throw error;
        });
    }
    return cardsPromise;
  }

  // ---- storage -----------------------------------------------------------------------------------
  function getItem(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (error) {
      return key in memory ? memory[key] : null;
    }
  }

  function setItem(key, value) {
    memory[key] = value;
    try {
      window.localStorage.setItem(key, value);
    } catch (error) {
      /* kept in memory for this page's life */
    }
  }

  function removeItem(key) {
    delete memory[key];
    try {
      window.localStorage.removeItem(key);
    } catch (error) {
      /* nothing stored */
    }
  }

  function isNumber(value) {
    return typeof value === "number" && isFinite(value);
  }

  function validEntry(entry) {
    return (
      entry &&
      typeof entry === "object" &&
      !Array.isArray(entry) &&
      isNumber(entry.reps) &&
      entry.reps >= 0 &&
      isNumber(entry.ef) &&
      entry.ef >= 1.3 &&
      entry.ef <= 5 &&
      isNumber(entry.interval) &&
      entry.interval >= 0 &&
      isNumber(entry.due)
    );
  }

  // { cards: {id: entry}, missed: {"id|bullet": count} } from anything; `dropped` counts what was not kept.
  function validState(value) {
    var state = { version: 1, cards: {}, missed: {} };
    var dropped = 0;
    if (!value || typeof value !== "object" || Array.isArray(value) || value.version !== 1) {
      return { state: state, dropped: value === null || value === undefined ? 0 : 1, foreign: true };
    }
    var cards = value.cards && typeof value.cards === "object" && !Array.isArray(value.cards) ? value.cards : {};
    Object.keys(cards).forEach(function (id) {
      var entry = cards[id];
      if (id.indexOf("#") > 0 && validEntry(entry)) {
        state.cards[id] = { reps: entry.reps, ef: entry.ef, interval: entry.interval, due: entry.due };
        if (isNumber(entry.last)) state.cards[id].last = entry.last;
      } else dropped += 1;
    });
    var missed = value.missed && typeof value.missed === "object" && !Array.isArray(value.missed) ? value.missed : {};
    Object.keys(missed).forEach(function (key) {
      if (key.indexOf("#") > 0 && isNumber(missed[key]) && missed[key] > 0) state.missed[key] = missed[key];
      else dropped += 1;
    });
    return { state: state, dropped: dropped, foreign: false };
  }

  function readState() {
    var stored = getItem(REVIEW_KEY);
    if (stored === null) return { version: 1, cards: {}, missed: {} };
    var parsed;
    try {
      parsed = JSON.parse(stored);
    } catch (error) {
      parsed = "not JSON";
    }
    var checked = validState(parsed);
    if (checked.dropped || checked.foreign) {
      report("stored", "Stored review data that this site did not write (or that was damaged) was ignored.");
      if (Object.keys(checked.state.cards).length || Object.keys(checked.state.missed).length) {
        writeState(checked.state);
      } else removeItem(REVIEW_KEY);
    }
    return checked.state;
  }

  function writeState(state) {
    setItem(REVIEW_KEY, JSON.stringify({ version: 1, cards: state.cards, missed: state.missed }));
  }

  function marks() {
    try {
      var parsed = JSON.parse(getItem(PROGRESS_KEY) || "{}");
      return parsed && typeof parsed === "object" ? parsed : {};
    } catch (error) {
      return {}; // drills.js repairs it
    }
  }

  // Each problem once per page life, in the status line of the study page that is open.
  function report(kind, message) {
    if (reported[kind]) return;
    reported[kind] = true;
    var box = document.querySelector(".study-app .study-notice");
    if (box) {
      box.textContent = message;
      box.hidden = false;
    } else reported[kind] = false; // no page to say it on yet: say it when there is one
  }

  // ---- Quiz me -----------------------------------------------------------------------------------
  function quizOn() {
    return getItem(QUIZ_KEY) === "on";
  }

  function answerParts(paragraph) {
    var parts = [paragraph];
    var seen = {};
    for (var node = paragraph.nextElementSibling; node && node.tagName !== "H2"; node = node.nextElementSibling) {
      if (node.tagName === "DETAILS") {
        var kind = node.classList.contains("success") ? "success" : node.classList.contains("failure") ? "failure" : "";
        if (kind && !seen[kind]) {
          seen[kind] = true;
          parts.push(node);
        }
      }
    }
    return parts;
  }

  function applyQuiz() {
    var on = quizOn();
    each(".study-quiz-toggle", function (toggle) {
      toggle.setAttribute("aria-pressed", on ? "true" : "false");
    });
    each("p.study-answer", function (paragraph, index) {
      var parts = answerParts(paragraph);
      var reveal = paragraph.previousElementSibling;
      var has = reveal && reveal.classList.contains("study-reveal");
      if (on && !has) {
        var id = "study-answer-" + (index + 1);
        paragraph.id = paragraph.id || id;
        reveal = button("study-reveal", "Show answer");
        reveal.setAttribute("aria-expanded", "false");
        reveal.setAttribute("aria-controls", paragraph.id);
        paragraph.parentNode.insertBefore(reveal, paragraph);
        parts.forEach(function (part) {
          part.hidden = true;
        });
      } else if (!on && has) {
        reveal.remove();
        parts.forEach(function (part) {
          part.hidden = false;
        });
      }
    });
  }

  function toggleReveal(reveal) {
    var paragraph = reveal.nextElementSibling;
    var open = reveal.getAttribute("aria-expanded") !== "true";
    answerParts(paragraph).forEach(function (part) {
      part.hidden = !open;
    });
    reveal.setAttribute("aria-expanded", open ? "true" : "false");
    reveal.textContent = open ? "Hide answer" : "Show answer";
  }

  function each(selector, action) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), action);
  }

  function say(toolbar, message) {
    var status = toolbar && toolbar.querySelector(".study-toolbar__status");
    if (status) status.textContent = message;
  }

  // ---- review page -------------------------------------------------------------------------------
  function filtersOf(app) {
    return {
      module: app.querySelector(".study-filter-module").value,
      tag: app.querySelector(".study-filter-tag").value,
      unknown: app.querySelector(".study-filter-unknown").checked,
    };
  }

  function buildQueue(cards, state, filters, at) {
    var known = filters.unknown ? marks() : {};
    var due = [];
    var fresh = [];
    cards.forEach(function (card) {
      if (filters.module && card.module !== filters.module) return;
      if (filters.tag && card.tags.indexOf(filters.tag) < 0) return;
      if (filters.unknown && (card.kind !== "question" || known[card.id])) return;
      var entry = state.cards[card.id];
      if (!entry) fresh.push(card);
      else if (entry.due <= at) due.push({ card: card, due: entry.due });
    });
    due.sort(function (a, b) {
      return a.due - b.due;
    });
    return due
      .map(function (item) {
        return item.card;
      })
      .concat(fresh);
  }

  function option(select, value, text) {
    var node = el("option", "", text);
    node.value = value;
    select.appendChild(node);
  }

  function labelled(labelText, control, id) {
    var wrap = el("span", "study-field");
    var label = el("label", "", labelText);
    control.id = id;
    label.htmlFor = id;
    wrap.appendChild(label);
    wrap.appendChild(control);
    return wrap;
  }

  function setUpReview(app, data) {
    app.textContent = "";
    var notice = el("p", "study-notice");
    notice.setAttribute("role", "status");
    notice.hidden = true;
    app.appendChild(notice);

    var filters = el("div", "study-filters");
    filters.setAttribute("role", "group");
    filters.setAttribute("aria-label", "Which cards");
    var module = el("select", "study-filter-module");
    option(module, "", "All modules");
    data.modules.forEach(function (name) {
      option(module, name, name);
    });
    var tag = el("select", "study-filter-tag");
    option(tag, "", "All tags");
    var tags = {};
    data.cards.forEach(function (card) {
      card.tags.forEach(function (name) {
        tags[name] = true;
      });
    });
    Object.keys(tags)
      .sort()
      .forEach(function (name) {
        option(tag, name, name);
      });
    var unknown = el("input", "study-filter-unknown");
    unknown.type = "checkbox";
    filters.appendChild(labelled("Module", module, "study-filter-module"));
    filters.appendChild(labelled("Tag", tag, "study-filter-tag"));
    var check = labelled("Only questions not marked “I can answer this”", unknown, "study-filter-unknown");
    check.classList.add("study-field--check");
    check.insertBefore(unknown, check.firstChild);
    filters.appendChild(check);
    app.appendChild(filters);

    var counter = el("p", "study-counter");
    counter.setAttribute("role", "status");
    counter.setAttribute("aria-live", "polite");
    app.appendChild(counter);

    var card = el("section", "study-card");
    card.setAttribute("aria-label", "Review card");
    card.hidden = true;
    var front = el("div", "study-card__front");
    front.tabIndex = -1;
    var flip = button("drill-button--primary study-flip", "Show answer (Space)");
    var back = el("div", "study-card__back");
    back.tabIndex = -1;
    back.setAttribute("aria-label", "Answer");
    back.hidden = true;
    var rate = el("div", "study-rate");
    rate.setAttribute("role", "group");
    rate.setAttribute("aria-label", "How well did you know it?");
    rate.hidden = true;
    RATINGS.forEach(function (pair, index) {
      var rating = button("study-rate__button", pair[1] + " (" + (index + 1) + ")");
      rating.setAttribute("data-rating", pair[0]);
      rate.appendChild(rating);
    });
    card.appendChild(front);
    card.appendChild(flip);
    card.appendChild(back);
    card.appendChild(rate);
    app.appendChild(card);

    var tools = el("div", "study-tools");
    tools.setAttribute("role", "group");
    tools.setAttribute("aria-label", "Your review history");
    tools.appendChild(button("study-export", "Export history (JSON file)"));
    var file = el("input", "study-import");
    file.type = "file";
    file.accept = ".json,application/json";
    tools.appendChild(labelled("Import history", file, "study-import"));
    tools.appendChild(button("study-clear", "Erase review history"));
    var confirm = el("p", "study-clear__confirm");
    confirm.hidden = true;
    confirm.appendChild(document.createTextNode("Erase every review date stored in this browser? "));
    confirm.appendChild(button("drill-button--primary study-clear__yes", "Yes, erase"));
    confirm.appendChild(document.createTextNode(" "));
    confirm.appendChild(button("study-clear__no", "Keep it"));
    tools.appendChild(confirm);
    var toolStatus = el("p", "study-tools__status");
    toolStatus.setAttribute("role", "status");
    tools.appendChild(toolStatus);
    app.appendChild(tools);

    var params = new URLSearchParams(location.search);
    if (params.get("module")) module.value = params.get("module");
    if (params.get("tag")) tag.value = params.get("tag");
    if (params.get("unknown") === "1") unknown.checked = true;

    review = { app: app, cards: data.cards, queue: [], current: null };
    app.classList.add("is-ready");
    refreshReview();
  }

  function refreshReview() {
    if (!review) return;
    var state = readState();
    review.queue = buildQueue(review.cards, state, filtersOf(review.app), now());
    showReviewCard();
  }

  function intervalText(days) {
    return days === 1 ? "1 day" : days + " days";
  }

  function showReviewCard() {
    var app = review.app;
    var card = app.querySelector(".study-card");
    var counter = app.querySelector(".study-counter");
    var state = readState();
    var current = review.queue[0];
    review.current = current || null;
    if (!current) {
      card.hidden = true;
      var next = null;
      var filters = filtersOf(app);
      review.cards.forEach(function (c) {
        var entry = state.cards[c.id];
        if (entry && (!filters.module || c.module === filters.module) && (next === null || entry.due < next)) next = entry.due;
      });
      counter.textContent =
        "Nothing due." + (next ? " The next card is due on " + new Date(next).toISOString().slice(0, 10) + "." : "");
      return;
    }
    var fresh = review.queue.filter(function (c) {
      return !state.cards[c.id];
    }).length;
    counter.textContent =
      review.queue.length + " to review (" + (review.queue.length - fresh) + " due, " + fresh + " new).";
    card.hidden = false;
    card.setAttribute("data-card-id", current.id);
    var front = card.querySelector(".study-card__front");
    front.textContent = "";
    front.appendChild(el("p", "study-card__where", current.module + " · " + current.page));
    front.appendChild(html(el("div", "study-card__question"), current.kind === "question" ? "<p>" + current.front + "</p>" : current.front));
    var back = card.querySelector(".study-card__back");
    back.textContent = "";
    back.appendChild(html(el("div", "study-card__answer"), current.kind === "question" ? "<p>" + current.back + "</p>" : current.back));
    appendBullets(back, "What a strong answer covers", current.covers);
    appendBullets(back, "Where people lose the point", current.misses);
    var link = el("a", "study-card__link", "Open it on its page");
    link.href = siteUrl(current.url);
    back.appendChild(el("p")).appendChild(link);
    back.hidden = true;
    card.querySelector(".study-rate").hidden = true;
    card.querySelector(".study-flip").hidden = false;
    var entry = state.cards[current.id];
    Array.prototype.forEach.call(card.querySelectorAll(".study-rate__button"), function (rating, index) {
      var next = SM2.review(entry, SM2.GRADES[rating.getAttribute("data-rating")], now());
      rating.setAttribute("aria-label", RATINGS[index][1] + " (key " + (index + 1) + "): next review in " + intervalText(next.interval));
      rating.title = "Next review in " + intervalText(next.interval);
    });
  }

  function appendBullets(box, title, bullets) {
    if (!bullets || !bullets.length) return;
    box.appendChild(el("p", "study-card__panel", title));
    var list = el("ul");
    bullets.forEach(function (bullet) {
      list.appendChild(html(el("li"), bullet));
    });
    box.appendChild(list);
  }

  function flipReview() {
    if (!review || !review.current) return;
    var card = review.app.querySelector(".study-card");
    var back = card.querySelector(".study-card__back");
    if (!back.hidden) return;
    back.hidden = false;
    card.querySelector(".study-rate").hidden = false;
    card.querySelector(".study-flip").hidden = true;
    back.focus();
  }

  function rateReview(name) {
    if (!review || !review.current) return;
    var card = review.app.querySelector(".study-card");
    if (card.querySelector(".study-card__back").hidden) return; // flip first
    var state = readState();
    state.cards[review.current.id] = SM2.review(state.cards[review.current.id], SM2.GRADES[name], now());
    writeState(state);
    refreshReview();
    var next = review.app.querySelector(review.current ? ".study-flip" : ".study-counter");
    if (review.current) next.focus();
  }

  function exportHistory(app) {
    var body = JSON.stringify({ format: EXPORT_FORMAT, version: 1, exported: new Date(now()).toISOString(), cards: readState().cards, missed: readState().missed }, null, 1);
    var link = el("a");
    link.href = URL.createObjectURL(new Blob([body], { type: "application/json" }));
    link.download = "pytorch-interview-review-" + new Date(now()).toISOString().slice(0, 10) + ".json";
    app.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(link.href);
    }, 1000);
    app.querySelector(".study-tools__status").textContent = "Exported " + Object.keys(readState().cards).length + " cards' history.";
  }

  function importHistory(input) {
    var app = input.closest(".study-app");
    var status = app.querySelector(".study-tools__status");
    var file = input.files && input.files[0];
    if (!file) return;
    file.text().then(function (text) {
      var parsed;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        parsed = null;
      }
      if (!parsed || parsed.format !== EXPORT_FORMAT || parsed.version !== 1) {
        status.textContent = "That file is not a review history exported from this site: nothing was imported.";
        input.value = "";
        return;
      }
      var checked = validState({ version: 1, cards: parsed.cards, missed: parsed.missed });
      writeState(checked.state);
      status.textContent =
        "Imported " + Object.keys(checked.state.cards).length + " cards' history" + (checked.dropped ? " (" + checked.dropped + " damaged entries skipped)." : ".");
      input.value = "";
      refreshReview();
    });
  }

  // ---- mock interview ----------------------------------------------------------------------------
  // mulberry32: a small seeded generator, so a seed in the URL draws the same questions every time.
  function seeded(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function draw(cards, modules, n, seed) {
    var pool = cards.filter(function (card) {
      return card.kind === "question" && modules.indexOf(card.module) >= 0;
    });
    var random = seeded(seed);
    for (var i = pool.length - 1; i > 0; i--) {
      var j = Math.floor(random() * (i + 1));
      var swap = pool[i];
      pool[i] = pool[j];
      pool[j] = swap;
    }
    return pool.slice(0, n);
  }

  function mockParams(data) {
    var params = new URLSearchParams(location.search);
    var preset = PRESETS[params.get("preset")];
    var wanted = params.get("modules") ? params.get("modules").split(",") : preset ? preset.modules : [];
    var modules = wanted.filter(function (name) {
      return data.modules.indexOf(name) >= 0;
    });
    var missing = wanted.filter(function (name) {
      return data.modules.indexOf(name) < 0;
    });
    var n = parseInt(params.get("n"), 10) || (preset ? preset.n : 5);
    var minutes = parseInt(params.get("minutes"), 10) || (preset ? preset.minutes : 30);
    var seed = params.get("seed");
    return {
      preset: params.get("preset") || "",
      modules: modules,
      missing: missing,
      n: Math.max(1, Math.min(n, 30)),
      minutes: Math.max(1, Math.min(minutes, 180)),
      seed: seed !== null && /^\d{1,10}$/.test(seed) ? Number(seed) >>> 0 : null,
    };
  }

  function setUpMock(app, data) {
    app.textContent = "";
    stopTimer();
    var notice = el("p", "study-notice");
    notice.setAttribute("role", "status");
    notice.hidden = true;
    app.appendChild(notice);
    var settings = mockParams(data);
    if (settings.seed === null || !settings.modules.length) {
      mockForm(app, data, settings);
    } else startMock(app, data, settings);
    app.classList.add("is-ready");
  }

  function mockForm(app, data, settings) {
    var form = el("form", "study-mock-form");
    form.setAttribute("aria-label", "Set up a mock interview");
    var presets = el("fieldset", "study-presets");
    presets.appendChild(el("legend", "", "Presets"));
    Object.keys(PRESETS).forEach(function (key) {
      var preset = PRESETS[key];
      var present = preset.modules.filter(function (name) {
        return data.modules.indexOf(name) >= 0;
      });
      var choice = button("study-preset", preset.label + " · " + preset.n + " questions, " + preset.minutes + " min");
      choice.setAttribute("data-preset", key);
      choice.disabled = present.length === 0;
      presets.appendChild(choice);
      presets.appendChild(document.createTextNode(" "));
    });
    form.appendChild(presets);
    var modules = el("fieldset", "study-modules");
    modules.appendChild(el("legend", "", "Modules"));
    data.modules.forEach(function (name, index) {
      var box = el("input");
      box.type = "checkbox";
      box.value = name;
      box.name = "module";
      box.checked = settings.modules.length ? settings.modules.indexOf(name) >= 0 : true;
      var wrap = labelled(name, box, "study-module-" + index);
      wrap.classList.add("study-field--check");
      wrap.insertBefore(box, wrap.firstChild);
      modules.appendChild(wrap);
    });
    form.appendChild(modules);
    var length = el("select", "study-length");
    [3, 5, 8, 10].forEach(function (n) {
      option(length, String(n), n + " questions");
    });
    length.value = String([3, 5, 8, 10].indexOf(settings.n) >= 0 ? settings.n : 5);
    var minutes = el("select", "study-minutes");
    [15, 20, 30, 45, 60].forEach(function (m) {
      option(minutes, String(m), m + " minutes");
    });
    minutes.value = String([15, 20, 30, 45, 60].indexOf(settings.minutes) >= 0 ? settings.minutes : 30);
    form.appendChild(labelled("Length", length, "study-length"));
    form.appendChild(labelled("Time", minutes, "study-minutes"));
    var start = button("drill-button--primary study-start", "Start the interview");
    start.type = "submit";
    form.appendChild(start);
    app.appendChild(form);
  }

  function go(params) {
    var url = new URL(location.href);
    url.search = params.toString();
    history.pushState(null, "", url.href);
    setUp();
  }

  function startMock(app, data, settings) {
    var questions = draw(data.cards, settings.modules, settings.n, settings.seed);
    mock = {
      app: app,
      settings: settings,
      questions: questions,
      index: 0,
      ratings: [], // per question: { covered: [true|false per bullet], bullets: [text] }
      started: now(),
      ends: now() + settings.minutes * 60 * 1000,
    };
    if (settings.missing.length) {
      report("missing", "Not in this build, so left out: " + settings.missing.join(", ") + ".");
    }
    var header = el("p", "study-mock__meta");
    header.appendChild(el("span", "study-mock__count"));
    header.appendChild(document.createTextNode(" · "));
    var timer = el("span", "study-mock__timer");
    timer.setAttribute("role", "timer");
    timer.setAttribute("aria-label", "Time left");
    header.appendChild(timer);
    app.appendChild(header);
    var timeUp = el("p", "study-mock__timeup");
    timeUp.setAttribute("role", "status");
    app.appendChild(timeUp);
    var stage = el("section", "study-mock__stage");
    stage.setAttribute("aria-label", "Question");
    app.appendChild(stage);
    app.setAttribute("data-mock-ids", questions.map(function (q) { return q.id; }).join(" "));
    mock.timer = setInterval(tick, 1000);
    tick();
    showMockQuestion();
  }

  function stopTimer() {
    if (mock && mock.timer) clearInterval(mock.timer);
    if (mock) mock.timer = null;
  }

  function tick() {
    if (!mock || !document.body.contains(mock.app)) return stopTimer();
    var left = Math.max(0, mock.ends - now());
    var minutes = Math.floor(left / 60000);
    var seconds = Math.floor((left % 60000) / 1000);
    mock.app.querySelector(".study-mock__timer").textContent = minutes + ":" + (seconds < 10 ? "0" : "") + seconds + " left";
    var up = mock.app.querySelector(".study-mock__timeup");
    if (left === 0 && !up.textContent) up.textContent = "Time is up. Finish the question you are on, then see the summary.";
  }

  function showMockQuestion() {
    var stage = mock.app.querySelector(".study-mock__stage");
    stage.textContent = "";
    var question = mock.questions[mock.index];
    mock.app.querySelector(".study-mock__count").textContent = "Question " + (mock.index + 1) + " of " + mock.questions.length;
    var heading = el("h2", "study-mock__question");
    heading.tabIndex = -1;
    html(heading, question.front);
    stage.appendChild(heading);
    var notes = el("textarea", "study-mock__notes");
    notes.rows = 5;
    stage.appendChild(labelled("Your notes (answer out loud or type here; they stay on this page)", notes, "study-mock-notes"));
    stage.appendChild(button("drill-button--primary study-mock__reveal", "Reveal the answer"));
    heading.focus();
  }

  function revealMock() {
    var stage = mock.app.querySelector(".study-mock__stage");
    var question = mock.questions[mock.index];
    stage.querySelector(".study-mock__reveal").remove();
    var answer = html(el("div", "study-mock__answer"), "<p>" + question.back + "</p>");
    answer.tabIndex = -1;
    stage.appendChild(answer);
    stage.appendChild(el("p", "", "For each bullet: did your answer cover it? A bullet left unrated counts as missed."));
    var bullets = [];
    [
      ["What a strong answer covers", question.covers, "Covered", "Missed"],
      ["Where people lose the point", question.misses, "Avoided", "Fell into it"],
    ].forEach(function (panel) {
      var list = el("ul", "study-mock__bullets");
      panel[1].forEach(function (bullet) {
        var number = bullets.length;
        bullets.push(bullet);
        var item = el("li", "study-mock__bullet");
        var group = el("fieldset", "study-mock__rating");
        var legend = html(el("legend"), bullet);
        group.appendChild(legend);
        [
          ["covered", panel[2]],
          ["missed", panel[3]],
        ].forEach(function (choice) {
          var radio = el("input");
          radio.type = "radio";
          radio.name = "study-bullet-" + number;
          radio.value = choice[0];
          var wrap = labelled(choice[1], radio, "study-bullet-" + number + "-" + choice[0]);
          wrap.classList.add("study-field--check");
          wrap.insertBefore(radio, wrap.firstChild);
          group.appendChild(wrap);
        });
        item.appendChild(group);
        list.appendChild(item);
      });
      stage.appendChild(el("p", "study-card__panel", panel[0]));
      stage.appendChild(list);
    });
    mock.bullets = bullets;
    var last = mock.index === mock.questions.length - 1;
    stage.appendChild(button("drill-button--primary study-mock__next", last ? "See the summary" : "Next question"));
    answer.focus();
  }

  function nextMock() {
    var stage = mock.app.querySelector(".study-mock__stage");
    var covered = mock.bullets.map(function (bullet, number) {
      var chosen = stage.querySelector('input[name="study-bullet-' + number + '"]:checked');
      return Boolean(chosen && chosen.value === "covered");
    });
    mock.ratings.push({ covered: covered, bullets: mock.bullets });
    mock.index += 1;
    if (mock.index < mock.questions.length) showMockQuestion();
    else summary();
  }

  function summary() {
    stopTimer();
    var app = mock.app;
    var stage = app.querySelector(".study-mock__stage");
    stage.textContent = "";
    app.querySelector(".study-mock__count").textContent = "Done";
    var heading = el("h2", "study-summary__title", "Summary");
    heading.tabIndex = -1;
    stage.appendChild(heading);
    var state = readState();
    var at = now();
    var byModule = {};
    var order = [];
    var missedHere = [];
    mock.questions.forEach(function (question, index) {
      var rating = mock.ratings[index];
      var got = rating.covered.filter(Boolean).length;
      if (!byModule[question.module]) {
        byModule[question.module] = { covered: 0, total: 0, questions: 0 };
        order.push(question.module);
      }
      byModule[question.module].covered += got;
      byModule[question.module].total += rating.covered.length;
      byModule[question.module].questions += 1;
      rating.covered.forEach(function (ok, number) {
        if (ok) return;
        var key = question.id + "|" + number;
        state.missed[key] = (state.missed[key] || 0) + 1;
        missedHere.push({ question: question, text: rating.bullets[number] });
      });
      if (got < rating.covered.length) {
        var entry = state.cards[question.id] || { reps: 0, ef: SM2.START.ef, interval: 0, due: at };
        entry.due = at; // missed something: due now in the review queue
        state.cards[question.id] = entry;
      }
    });
    writeState(state);

    var table = el("table", "study-summary__modules");
    var caption = el("caption", "", "Score by module (bullets covered)");
    table.appendChild(caption);
    var head = el("tr");
    ["Module", "Questions", "Covered", "Score"].forEach(function (name) {
      var cell = el("th", "", name);
      cell.scope = "col";
      head.appendChild(cell);
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = el("tbody");
    order.forEach(function (name) {
      var row = el("tr");
      row.setAttribute("data-module", name);
      var score = byModule[name];
      var th = el("th", "", name);
      th.scope = "row";
      row.appendChild(th);
      row.appendChild(el("td", "", String(score.questions)));
      row.appendChild(el("td", "study-summary__covered", score.covered + " of " + score.total));
      row.appendChild(el("td", "", score.total ? Math.round((100 * score.covered) / score.total) + " %" : "–"));
      body.appendChild(row);
    });
    table.appendChild(body);
    stage.appendChild(table);

    stage.appendChild(el("h3", "", "Missed in this interview"));
    var missedList = el("ul", "study-summary__missed");
    missedHere.forEach(function (item) {
      var li = html(el("li"), item.text + " — ");
      var link = el("a", "", item.question.front.replace(/<[^>]+>/g, ""));
      link.href = siteUrl(item.question.url);
      li.appendChild(link);
      missedList.appendChild(li);
    });
    if (!missedHere.length) missedList.appendChild(el("li", "", "Nothing: every bullet covered."));
    stage.appendChild(missedList);

    stage.appendChild(el("h3", "", "Missed most (all your mock interviews in this browser)"));
    var byId = {};
    loadCards().then(function (data) {
      data.cards.forEach(function (card) {
        byId[card.id] = card;
      });
      var ranked = Object.keys(state.missed)
        .filter(function (key) {
          return byId[key.split("|")[0]];
        })
        .sort(function (a, b) {
          return state.missed[b] - state.missed[a] || (a < b ? -1 : 1);
        })
        .slice(0, 5);
      var most = el("ol", "study-summary__most");
      ranked.forEach(function (key) {
        var card = byId[key.split("|")[0]];
        var number = Number(key.split("|")[1]);
        var bullet = (card.covers || []).concat(card.misses || [])[number] || "";
        var li = html(el("li"), bullet + " — ");
        var link = el("a", "", card.front.replace(/<[^>]+>/g, ""));
        link.href = siteUrl(card.url);
        li.appendChild(link);
        li.appendChild(document.createTextNode(" (missed " + state.missed[key] + "×)"));
        most.appendChild(li);
      });
      if (!ranked.length) most.appendChild(el("li", "", "Nothing missed yet."));
      stage.appendChild(most);
      var questions = el("h3", "", "The questions");
      stage.appendChild(questions);
      var list = el("ol", "study-summary__questions");
      mock.questions.forEach(function (question) {
        var link = el("a", "", question.front.replace(/<[^>]+>/g, ""));
        link.href = siteUrl(question.url);
        list.appendChild(el("li")).appendChild(link);
      });
      stage.appendChild(list);
      var again = el("p");
      var toReview = el("a", "drill-button", "Review the missed questions now");
      toReview.href = siteUrl("review/");
      again.appendChild(toReview);
      stage.appendChild(again);
      app.classList.add("is-summary");
    });
    heading.focus();
  }

  // ---- events, bound once ------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target.closest("button") : null;
    if (!target) return;
    var has = function (name) {
      return target.classList.contains(name);
    };
    if (has("study-quiz-toggle")) {
      var on = !quizOn();
      if (on) setItem(QUIZ_KEY, "on");
      else removeItem(QUIZ_KEY);
      applyQuiz();
      say(target.closest(".study-toolbar"), on ? "Quiz me is on: each answer is behind Show answer, on every page." : "Quiz me is off: answers are shown.");
    } else if (has("study-expand-all")) {
      var open = target.getAttribute("aria-pressed") !== "true";
      each(".md-content details", function (panel) {
        panel.open = open;
      });
      target.setAttribute("aria-pressed", open ? "true" : "false");
      target.textContent = open ? "Collapse all panels" : "Expand all panels";
      say(target.closest(".study-toolbar"), open ? "Every panel is open." : "Every panel is closed.");
    } else if (has("study-reveal")) toggleReveal(target);
    else if (has("study-flip")) flipReview();
    else if (has("study-rate__button")) rateReview(target.getAttribute("data-rating"));
    else if (has("study-export")) exportHistory(target.closest(".study-app"));
    else if (has("study-clear") || has("study-clear__no")) {
      var tools = target.closest(".study-tools");
      var asking = has("study-clear");
      tools.querySelector(".study-clear__confirm").hidden = !asking;
      tools.querySelector(".study-clear").hidden = asking;
      tools.querySelector(asking ? ".study-clear__no" : ".study-clear").focus();
    } else if (has("study-clear__yes")) {
      var box = target.closest(".study-tools");
      removeItem(REVIEW_KEY);
      box.querySelector(".study-clear__confirm").hidden = true;
      box.querySelector(".study-clear").hidden = false;
      box.querySelector(".study-tools__status").textContent = "Review history erased.";
      box.querySelector(".study-clear").focus();
      refreshReview();
    } else if (has("study-preset")) {
      event.preventDefault();
      var preset = PRESETS[target.getAttribute("data-preset")];
      var params = new URLSearchParams();
      params.set("preset", target.getAttribute("data-preset"));
      params.set("modules", preset.modules.join(","));
      params.set("n", String(preset.n));
      params.set("minutes", String(preset.minutes));
      params.set("seed", String(Math.floor(Math.random() * 4294967296)));
      go(params);
    } else if (has("study-mock__reveal")) revealMock();
    else if (has("study-mock__next")) nextMock();
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof Element) || !form.classList.contains("study-mock-form")) return;
    event.preventDefault();
    var chosen = Array.prototype.map.call(form.querySelectorAll('input[name="module"]:checked'), function (box) {
      return box.value;
    });
    if (!chosen.length) {
      report("none", "Choose at least one module.");
      reported.none = false;
      return;
    }
    var params = new URLSearchParams();
    params.set("modules", chosen.join(","));
    params.set("n", form.querySelector(".study-length").value);
    params.set("minutes", form.querySelector(".study-minutes").value);
    params.set("seed", String(Math.floor(Math.random() * 4294967296)));
    go(params);
  });

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    if (target.matches(".study-filter-module, .study-filter-tag, .study-filter-unknown")) refreshReview();
    else if (target.matches(".study-import")) importHistory(target);
  });

  // Review keys: Space flips, 1-4 rate. Not while typing, and a focused button keeps its own Space.
  document.addEventListener("keydown", function (event) {
    if (!review || !review.current || !document.body.contains(review.app)) return;
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target instanceof Element && target.matches("input, select, textarea, [contenteditable]")) return;
    if (event.key === " " && !(target instanceof Element && target.matches("button, a, summary"))) {
      event.preventDefault();
      flipReview();
    } else if (/^[1-4]$/.test(event.key)) {
      event.preventDefault();
      rateReview(RATINGS[Number(event.key) - 1][0]);
    }
  });

  // Print: every panel open and every flashcard shown (study.css lays them out as static text).
  window.addEventListener("beforeprint", function () {
    each(".md-content details", function (panel) {
      if (!panel.open) {
        panel.open = true;
        panel.setAttribute("data-print-opened", "");
      }
    });
  });
  window.addEventListener("afterprint", function () {
    each("details[data-print-opened]", function (panel) {
      panel.open = false;
      panel.removeAttribute("data-print-opened");
    });
  });

  // ---- per page ----------------------------------------------------------------------------------
  function setUp() {
    reported = {};
    stopTimer();
    review = null;
    mock = null;
    applyQuiz();
    var app = document.querySelector(".study-app");
    if (!app) return;
    app.textContent = "Loading the cards…";
    loadCards().then(
      function (data) {
        if (!document.body.contains(app)) return;
        if (app.getAttribute("data-study") === "review") setUpReview(app, data);
        else if (app.getAttribute("data-study") === "mock") setUpMock(app, data);
        readState(); // report stored data that was not ours, once
      },
      function () {
        app.textContent = "The cards could not be loaded (study/cards.json). Reload the page to try again.";
      }
    );
  }

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
