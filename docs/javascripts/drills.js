/* Drills and "I can answer this" marks for Verified PyTorch Interview Prep.
 *
 * The markup comes from hooks/drill_blocks.py (the drills) and hooks/drill_progress.py (the toggles
 * and progress lists); this file only makes it interactive. It has no dependencies, fetches nothing
 * and is a plain file of the site, so a strict Content-Security-Policy can allow it by origin (no
 * inline code, no on…= attributes; styles are set through the CSSOM, never as style attributes).
 *
 * Events are delegated from `document`, bound once, so they keep working when Material's instant
 * navigation swaps the page; the per-page set-up (shuffles, restoring marks) runs on Material's
 * `document$`, which fires for the first page and after every instant navigation.
 * Marks are kept in localStorage only, under one key. Nothing leaves the browser.
 */
(function () {
  "use strict";

  var STORE_KEY = "vpip.progress.v1";
  var NUDGE = "That line does what it says. Look for the one that breaks what the code is meant to do.";
  var memory = {}; // the marks when localStorage is unavailable (blocked storage, some private modes)
  var decks = new WeakMap(); // flashcards drill -> its round: { queue: [card indices], total: n }
  var drag = null; // the match card being dragged

  function each(root, selector, action) {
    Array.prototype.forEach.call(root.querySelectorAll(selector), action);
  }

  function shuffled(items) {
    var copy = items.slice();
    for (var i = copy.length - 1; i > 0; i--) {
      var j = Math.floor(Math.random() * (i + 1));
      var swap = copy[i];
      copy[i] = copy[j];
      copy[j] = swap;
    }
    return copy;
  }

  function show(element, visible) {
    if (element) element.hidden = !visible;
  }

  // ---- marks: { "<page url>#<anchor>": "<date marked>" } -------------------------------------------
  // What is stored may be corrupt (hand-edited, truncated) or left by another version of the site: the
  // page never trusts it. A mark is kept only if it has the shape this version writes; anything else is
  // dropped and the store is rewritten, and keys of other store versions are removed.
  var STORE_PREFIX = "vpip.progress.";
  var MARK_DATE = /^\d{4}-\d{2}-\d{2}$/;

  function validMarks(value) {
    var marks = {};
    if (!value || typeof value !== "object" || Array.isArray(value)) return marks;
    Object.keys(value).forEach(function (key) {
      if (key.indexOf("#") >= 0 && typeof value[key] === "string" && MARK_DATE.test(value[key])) marks[key] = value[key];
    });
    return marks;
  }

  function readMarks() {
    var stored;
    try {
      stored = window.localStorage.getItem(STORE_KEY);
    } catch (error) {
      return memory; // storage is blocked: the marks live in memory for this page's life
    }
    if (stored === null) return {};
    var parsed;
    try {
      parsed = JSON.parse(stored);
    } catch (error) {
      parsed = null; // not JSON: start again
    }
    var marks = validMarks(parsed);
    if (JSON.stringify(marks) !== stored) {
      if (Object.keys(marks).length) writeMarks(marks);
      else eraseMarks();
    }
    return marks;
  }

  function forgetOtherVersions() {
    try {
      var stale = [];
      for (var i = 0; i < window.localStorage.length; i++) {
        var key = window.localStorage.key(i);
        if (key && key.indexOf(STORE_PREFIX) === 0 && key !== STORE_KEY) stale.push(key);
      }
      stale.forEach(function (key) {
        window.localStorage.removeItem(key);
      });
    } catch (error) {
      /* storage is blocked: nothing to forget */
    }
  }

  function writeMarks(marks) {
    memory = marks;
    try {
      window.localStorage.setItem(STORE_KEY, JSON.stringify(marks));
    } catch (error) {
      /* kept in memory for this page's life */
    }
  }

  function setMark(key, on) {
    var marks = readMarks();
    if (on) marks[key] = new Date().toISOString().slice(0, 10);
    else delete marks[key];
    writeMarks(marks);
  }

  function eraseMarks() {
    memory = {};
    try {
      window.localStorage.removeItem(STORE_KEY);
    } catch (error) {
      /* nothing stored */
    }
  }

  function renderProgress(root) {
    var marks = readMarks();
    each(root, ".progress-toggle", function (toggle) {
      toggle.setAttribute("aria-pressed", marks[toggle.getAttribute("data-progress-key")] ? "true" : "false");
    });
    each(root, ".progress-item", function (item) {
      var done = Boolean(marks[item.getAttribute("data-progress-key")]);
      item.classList.toggle("is-done", done);
      var state = item.querySelector(".progress-item__state");
      if (state) state.textContent = done ? " (marked: I can answer this)" : "";
    });
    each(root, ".progress-next", function (next) {
      var open = Array.prototype.slice.call(document.querySelectorAll(".progress-overview .progress-item:not(.is-done) a"));
      var first = next.querySelector(".progress-next__first");
      var random = next.querySelector(".progress-next__random");
      if (open.length) {
        first.setAttribute("href", open[0].getAttribute("href"));
        random.setAttribute("href", open[0].getAttribute("href")); // drawn when the reader reaches for it
      }
      show(first, open.length > 0);
      show(random, open.length > 0);
      show(next.querySelector(".progress-next__done"), open.length === 0);
    });
    each(root, ".progress-count", function (count) {
      var scope = count.closest("[data-progress-scope]") || root;
      var total = scope.querySelectorAll(".progress-item").length;
      var done = scope.querySelectorAll(".progress-item.is-done").length;
      count.textContent = done + " of " + total + " marked";
    });
  }

  // ---- spot the bug ------------------------------------------------------------------------------
  function markLine(line, state) {
    line.setAttribute("data-state", state);
  }

  function feedback(drill, strong, nodes, near) {
    var box = drill.querySelector(".drill__feedback");
    var paragraph = document.createElement("p");
    var lead = document.createElement("strong");
    lead.textContent = strong;
    paragraph.appendChild(lead);
    nodes.forEach(function (node) {
      paragraph.appendChild(node);
    });
    box.textContent = "";
    box.appendChild(paragraph);
    if (near) sayNearLine(drill, paragraph, near);
  }

  // A spot-the-bug verdict is also shown right under the line chosen: the feedback box (the live region
  // screen readers hear) sits under the whole listing, often a screen or more below on a phone.
  function sayNearLine(drill, paragraph, line) {
    var verdict = drill.querySelector(".drill-spot__verdict");
    if (!verdict) {
      verdict = document.createElement("div");
      verdict.className = "drill-spot__verdict";
      verdict.setAttribute("aria-hidden", "true"); // the live region says it once
    }
    verdict.textContent = "";
    verdict.appendChild(paragraph.cloneNode(true));
    line.parentNode.insertBefore(verdict, line.nextSibling);
    verdict.scrollIntoView({ block: "nearest" });
  }

  function bugsOf(drill) {
    return drill.getAttribute("data-bug").split(" ");
  }

  function revealSpot(drill) {
    bugsOf(drill).forEach(function (number) {
      var line = drill.querySelector('.drill-spot__line[data-line="' + number + '"]');
      if (line) markLine(line, "right");
    });
    show(drill.querySelector(".drill__answer"), true);
    show(drill.querySelector(".drill-spot__show"), false);
    drill.classList.add("is-solved");
  }

  function chooseLine(line) {
    var drill = line.closest(".drill--spot");
    var number = line.getAttribute("data-line");
    var bugs = bugsOf(drill);
    if (bugs.indexOf(number) >= 0) {
      markLine(line, "right");
      var missing = bugs.filter(function (bug) {
        var other = drill.querySelector('.drill-spot__line[data-line="' + bug + '"]');
        return other && other.getAttribute("data-state") !== "right";
      });
      if (missing.length) {
        var left = missing.length === 1 ? "one more buggy line" : missing.length + " more buggy lines";
        feedback(drill, "Yes: line " + number + " is a bug.", [document.createTextNode(" Find " + left + ".")], line);
        return;
      }
      revealSpot(drill);
      var found = bugs.length > 1 ? "Yes: lines " + bugs.join(" and ") + " are the bugs." : "Yes: line " + number + " is the bug.";
      feedback(drill, found, [document.createTextNode(" The explanation and the fix are below.")], line);
      return;
    }
    markLine(line, "wrong");
    var hint = drill.querySelector('.drill-spot__hints [data-line="' + number + '"]');
    var nodes = hint
      ? Array.prototype.map.call(hint.childNodes, function (node) {
          return node.cloneNode(true);
        })
      : [document.createTextNode(NUDGE)];
    nodes.unshift(document.createTextNode(" "));
    feedback(drill, "Not line " + number + ".", nodes, line);
  }

  function showAnswer(button) {
    var drill = button.closest(".drill--spot");
    revealSpot(drill);
    var bugs = bugsOf(drill);
    var first = drill.querySelector('.drill-spot__line[data-line="' + bugs[0] + '"]');
    feedback(
      drill,
      "The bug is line" + (bugs.length > 1 ? "s " : " ") + bugs.join(" and ") + ".",
      [document.createTextNode(" The explanation and the fix are below.")],
      first
    );
    var answer = drill.querySelector(".drill__answer");
    answer.setAttribute("tabindex", "-1");
    answer.focus(); // the button is gone; keep keyboard users where the answer is
  }

  // The listing is one Tab stop (a roving tabindex): ↑/↓ move between its lines, Home/End to the ends,
  // Tab leaves it. The line last focused keeps tabindex 0, so Shift+Tab back returns to it.
  function spotLines(drill) {
    return Array.prototype.slice.call(drill.querySelectorAll("button.drill-spot__line"));
  }

  function focusLine(drill, target) {
    spotLines(drill).forEach(function (line) {
      line.setAttribute("tabindex", line === target ? "0" : "-1");
    });
    target.focus();
  }

  function moveAmongLines(line, key) {
    var drill = line.closest(".drill--spot");
    var lines = spotLines(drill);
    var at = lines.indexOf(line);
    var to = key === "Home" ? 0 : key === "End" ? lines.length - 1 : at + (key === "ArrowDown" ? 1 : -1);
    if (lines[to]) focusLine(drill, lines[to]);
  }

  // ---- step-through ------------------------------------------------------------------------------
  function currentStep(drill) {
    var steps = Array.prototype.slice.call(drill.querySelectorAll(".drill-steps__step"));
    return Math.max(
      0,
      steps.findIndex(function (step) {
        return !step.hidden;
      })
    );
  }

  function goToStep(drill, index) {
    var steps = drill.querySelectorAll(".drill-steps__step");
    index = Math.max(0, Math.min(steps.length - 1, index));
    Array.prototype.forEach.call(steps, function (step, position) {
      show(step, position === index);
    });
    drill.querySelector(".drill-steps__counter").textContent = "Step " + (index + 1) + " of " + steps.length;
    drill.querySelector(".drill-steps__prev").setAttribute("aria-disabled", index === 0 ? "true" : "false");
    drill.querySelector(".drill-steps__next").setAttribute("aria-disabled", index === steps.length - 1 ? "true" : "false");
  }

  // ---- match -------------------------------------------------------------------------------------
  // Each item keeps its own choice: walking a closed <select> with ↓ fires `change` at every option
  // passed, so a choice never clears another item's (that erased answers typed by keyboard). Two items
  // given the same answer are flagged at Check instead.
  function chosenText(select) {
    var option = select.options[select.selectedIndex];
    return option && select.value ? option.textContent : "";
  }

  function refreshMatch(drill) {
    var used = {};
    each(drill, ".drill-match__select", function (select) {
      if (select.value) used[select.value] = true;
      var row = select.closest(".drill-match__item");
      row.classList.toggle("is-filled", Boolean(select.value));
      var shown = row.querySelector(".drill-match__shown");
      if (shown) shown.textContent = chosenText(select) || "Choose…"; // the whole text, wrapped
    });
    each(drill, ".drill-match__card", function (card) {
      show(card, !used[card.getAttribute("data-target")]);
    });
    drill.querySelector(".drill-match__pool").classList.toggle("is-empty", !drill.querySelector(".drill-match__card:not([hidden])"));
  }

  function setVerdict(row, verdict) {
    if (verdict) row.setAttribute("data-verdict", verdict);
    else row.removeAttribute("data-verdict");
    var labels = { right: "✓ right", wrong: "✗ wrong", twice: "✗ also chosen for another item", empty: "✗ no answer" };
    row.querySelector(".drill-match__verdict").textContent = verdict ? labels[verdict] : "";
  }

  function place(row, value) {
    var drill = row.closest(".drill--match");
    row.querySelector(".drill-match__select").value = value;
    setVerdict(row, null);
    refreshMatch(drill);
  }

  function checkMatch(drill, revealed) {
    var rows = drill.querySelectorAll(".drill-match__item");
    var times = {};
    each(drill, ".drill-match__select", function (select) {
      if (select.value) times[select.value] = (times[select.value] || 0) + 1;
    });
    var right = 0;
    var twice = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var value = row.querySelector(".drill-match__select").value;
      var verdict = value === row.getAttribute("data-answer") ? "right" : !value ? "empty" : times[value] > 1 ? "twice" : "wrong";
      if (verdict === "right") right += 1;
      if (verdict === "twice") twice += 1;
      setVerdict(row, verdict);
    });
    var all = right === rows.length;
    var message = revealed ? "All answers shown." : all ? "All " + rows.length + " right." : right + " of " + rows.length + " right.";
    if (twice) message += " " + twice + (twice > 1 ? " wrong answers are" : " wrong answer is") + " also chosen for another item: each answer fits one item.";
    drill.querySelector(".drill__feedback").textContent = message;
    show(drill.querySelector(".drill-match__retry"), !all);
    drill.classList.toggle("is-solved", all);
  }

  function retryMatch(drill) {
    var first = null;
    each(drill, ".drill-match__item", function (row) {
      if (row.getAttribute("data-verdict") !== "right") {
        row.querySelector(".drill-match__select").value = "";
        first = first || row.querySelector(".drill-match__select");
      }
      setVerdict(row, null);
    });
    drill.querySelector(".drill__feedback").textContent = "";
    show(drill.querySelector(".drill-match__retry"), false);
    refreshMatch(drill);
    if (first) first.focus();
  }

  function revealMatch(drill) {
    each(drill, ".drill-match__item", function (row) {
      row.querySelector(".drill-match__select").value = row.getAttribute("data-answer");
    });
    refreshMatch(drill);
    checkMatch(drill, true);
  }

  function rowAt(x, y) {
    var under = document.elementFromPoint(x, y);
    var row = under && under.closest(".drill-match__item");
    return row && row.closest(".drill--match") === drag.drill ? row : null;
  }

  function endDrag() {
    if (!drag) return;
    if (drag.ghost) drag.ghost.remove();
    if (drag.over) drag.over.classList.remove("is-over");
    drag.card.classList.remove("is-dragging");
    drag = null;
  }

  // ---- flashcards --------------------------------------------------------------------------------
  function startDeck(drill) {
    var cards = drill.querySelectorAll(".drill-card");
    var order = Array.prototype.map.call(cards, function (card, index) {
      return index;
    });
    decks.set(drill, { queue: shuffled(order), total: cards.length, missed: [] });
    showCard(drill);
  }

  function showCard(drill) {
    var round = decks.get(drill);
    var cards = drill.querySelectorAll(".drill-card");
    Array.prototype.forEach.call(cards, function (card) {
      show(card, false);
      show(card.querySelector(".drill-card__back"), false);
    });
    var done = round.queue.length === 0;
    var counter = drill.querySelector(".drill-cards__counter");
    if (done && !round.missed.length) counter.textContent = "Round done: you got all " + round.total + " cards.";
    else if (done) counter.textContent = roundReport(cards, round);
    else {
      show(cards[round.queue[0]], true);
      counter.textContent = "Card " + (round.total - round.queue.length + 1) + " of " + round.total;
    }
    show(drill.querySelector(".drill-cards__reveal"), !done);
    show(drill.querySelector(".drill-cards__got"), false);
    show(drill.querySelector(".drill-cards__again"), false);
    show(drill.querySelector(".drill-cards__restart"), done);
  }

  // "Round done: 2 of 3 the first time. Again: <front of each card sent back>." — what to review next.
  function roundReport(cards, round) {
    var fronts = round.missed.map(function (index) {
      var front = cards[index].querySelector(".drill-card__front");
      return "“" + (front ? front.textContent.trim() : "card " + (index + 1)) + "”";
    });
    var first = round.total - round.missed.length;
    return "Round done: " + first + " of " + round.total + " the first time. Review " + (fronts.length > 1 ? "these: " : "this one: ") + fronts.join("; ") + ".";
  }

  function revealCard(drill) {
    var card = drill.querySelectorAll(".drill-card")[decks.get(drill).queue[0]];
    show(card.querySelector(".drill-card__back"), true);
    show(drill.querySelector(".drill-cards__reveal"), false);
    show(drill.querySelector(".drill-cards__got"), true);
    show(drill.querySelector(".drill-cards__again"), true);
    drill.querySelector(".drill-cards__got").focus();
  }

  function answerCard(drill, gotIt) {
    var queue = decks.get(drill).queue;
    var card = queue.shift();
    if (!gotIt) {
      queue.push(card); // comes back later in this round
      var missed = decks.get(drill).missed;
      if (missed.indexOf(card) < 0) missed.push(card);
    }
    showCard(drill);
    var next = drill.querySelector(queue.length ? ".drill-cards__reveal" : ".drill-cards__restart");
    next.focus();
  }

  // ---- events, bound once ------------------------------------------------------------------------
  document.addEventListener("click", function (event) {
    var button = event.target instanceof Element ? event.target.closest("button") : null;
    if (!button || button.getAttribute("aria-disabled") === "true") return;
    var has = function (name) {
      return button.classList.contains(name);
    };
    var drill = button.closest(".drill");
    if (has("progress-toggle")) {
      setMark(button.getAttribute("data-progress-key"), button.getAttribute("aria-pressed") !== "true");
      renderProgress(document);
    } else if (has("drill-spot__line")) chooseLine(button);
    else if (has("drill-spot__show")) showAnswer(button);
    else if (has("drill-steps__prev")) goToStep(drill, currentStep(drill) - 1);
    else if (has("drill-steps__next")) goToStep(drill, currentStep(drill) + 1);
    else if (has("drill-match__check")) checkMatch(drill, false);
    else if (has("drill-match__retry")) retryMatch(drill);
    else if (has("drill-match__reveal")) revealMatch(drill);
    else if (has("drill-cards__reveal")) revealCard(drill);
    else if (has("drill-cards__got")) answerCard(drill, true);
    else if (has("drill-cards__again")) answerCard(drill, false);
    else if (has("drill-cards__restart")) {
      startDeck(drill);
      drill.querySelector(".drill-cards__reveal").focus();
    } else if (has("progress-reset__ask") || has("progress-reset__no")) {
      var reset = button.closest(".progress-reset");
      var asking = has("progress-reset__ask");
      show(reset.querySelector(".progress-reset__confirm"), asking);
      show(reset.querySelector(".progress-reset__ask"), !asking);
      reset.querySelector(asking ? ".progress-reset__no" : ".progress-reset__ask").focus();
    } else if (has("progress-reset__yes")) {
      var box = button.closest(".progress-reset");
      eraseMarks();
      renderProgress(document);
      show(box.querySelector(".progress-reset__confirm"), false);
      show(box.querySelector(".progress-reset__ask"), true);
      box.querySelector(".progress-reset__status").textContent = "All marks erased.";
      box.querySelector(".progress-reset__ask").focus();
    }
  });

  // "Random unmarked" draws its target as the pointer presses it or the focus reaches it, before the
  // click: the page's markup stays the same on every load.
  function drawRandom(event) {
    var link = event.target instanceof Element ? event.target.closest(".progress-next__random") : null;
    if (!link) return;
    var open = document.querySelectorAll(".progress-overview .progress-item:not(.is-done) a");
    if (open.length) link.setAttribute("href", open[Math.floor(Math.random() * open.length)].getAttribute("href"));
  }
  document.addEventListener("pointerdown", drawRandom);

  document.addEventListener("focusin", function (event) {
    drawRandom(event);
    var line = event.target instanceof Element ? event.target.closest("button.drill-spot__line") : null;
    if (line && line.getAttribute("tabindex") !== "0") focusLine(line.closest(".drill--spot"), line);
  });

  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select instanceof Element && select.classList.contains("drill-match__select")) {
      place(select.closest(".drill-match__item"), select.value);
    }
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (!(target instanceof Element) || event.altKey || event.ctrlKey || event.metaKey) return;
    var steps = target.closest(".drill--steps");
    var arrow = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (steps && arrow && !target.matches("input, select, textarea")) {
      event.preventDefault();
      goToStep(steps, currentStep(steps) + arrow);
      return;
    }
    var line = target.closest("button.drill-spot__line");
    if (line && ["ArrowDown", "ArrowUp", "Home", "End"].indexOf(event.key) >= 0) {
      event.preventDefault();
      moveAmongLines(line, event.key);
    }
  });

  // Drag and drop with Pointer Events: one code path for mouse, pen and touch (cards set
  // `touch-action: none`, so a finger drags the card instead of scrolling the page).
  document.addEventListener("pointerdown", function (event) {
    var card = event.target instanceof Element ? event.target.closest(".drill-match__card") : null;
    if (!card || !event.isPrimary || event.button !== 0) return;
    event.preventDefault();
    drag = { card: card, drill: card.closest(".drill--match"), id: event.pointerId, x: event.clientX, y: event.clientY };
    if (card.setPointerCapture) card.setPointerCapture(event.pointerId);
  });

  document.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.id) return;
    if (!drag.ghost) {
      if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < 4) return;
      drag.ghost = drag.card.cloneNode(true);
      drag.ghost.classList.add("drill-match__ghost");
      document.body.appendChild(drag.ghost);
      drag.card.classList.add("is-dragging");
    }
    drag.ghost.style.transform = "translate(" + (event.clientX + 6) + "px, " + (event.clientY + 6) + "px)";
    var row = rowAt(event.clientX, event.clientY);
    if (row !== drag.over) {
      if (drag.over) drag.over.classList.remove("is-over");
      if (row) row.classList.add("is-over");
      drag.over = row;
    }
  });

  document.addEventListener("pointerup", function (event) {
    if (!drag || event.pointerId !== drag.id) return;
    var row = drag.ghost ? rowAt(event.clientX, event.clientY) : null;
    var target = drag.card.getAttribute("data-target");
    endDrag();
    if (row) place(row, target);
  });

  document.addEventListener("pointercancel", endDrag);

  window.addEventListener("storage", function (event) {
    if (event.key === STORE_KEY || event.key === null) renderProgress(document);
  });

  // ---- per page ----------------------------------------------------------------------------------
  function setUp() {
    endDrag();
    forgetOtherVersions();
    each(document, ".drill--cards", startDeck);
    each(document, ".drill-match__pool", function (pool) {
      shuffled(Array.prototype.slice.call(pool.children)).forEach(function (card) {
        pool.appendChild(card);
      });
    });
    each(document, ".drill--match", refreshMatch);
    renderProgress(document);
    each(document, ".drill", function (drill) {
      drill.classList.add("is-ready"); // set up: shuffled, state restored (the browser tests wait for it)
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
