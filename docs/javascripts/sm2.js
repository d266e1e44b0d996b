/* SM-2, the SuperMemo 2 spaced-repetition schedule (P. A. Wozniak, 1990), as the review page uses it.
 *
 * Pure: no DOM, no storage, no clock of its own (the caller passes `now`), so tests/test_sm2.py runs it
 * in Node against the algorithm's published numbers, and the browser tests inject the clock.
 *
 * The published algorithm, per item: E-Factor starts at 2.5; after a review graded q (0-5),
 *   q >= 3: I(1) = 1 day, I(2) = 6 days, I(n) = I(n-1) * EF, and then
 *           EF' = EF + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)), never below 1.3;
 *   q <  3: the repetitions start again from I(1) without changing EF.
 * Intervals are whole days (rounded to the nearest day); EF is kept to two decimals so the stored
 * state reads the same on every browser. The four buttons are grades: Again = 1, Hard = 3, Good = 4,
 * Easy = 5.
 */
(function (root) {
  "use strict";

  var DAY = 24 * 60 * 60 * 1000;
  var GRADES = { again: 1, hard: 3, good: 4, easy: 5 };
  var START = { reps: 0, ef: 2.5, interval: 0, due: 0 };

  function nextEF(ef, q) {
    var updated = ef + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02));
    return Math.max(1.3, Math.round(updated * 100) / 100);
  }

  // state: { reps, ef, interval (days), due (ms since the epoch) } or undefined for a new card.
  function review(state, q, now) {
    if (!(q >= 0 && q <= 5 && Math.floor(q) === q)) throw new RangeError("SM-2 grades are 0 to 5, got " + q);
    var s = state || START;
    var reps, interval, ef;
    if (q < 3) {
      reps = 0;
      interval = 1;
      ef = s.ef;
    } else {
      reps = s.reps + 1;
      interval = reps === 1 ? 1 : reps === 2 ? 6 : Math.round(s.interval * s.ef);
      ef = nextEF(s.ef, q);
    }
    return { reps: reps, ef: ef, interval: interval, due: now + interval * DAY, last: now };
  }

  var api = { DAY: DAY, GRADES: GRADES, START: START, nextEF: nextEF, review: review };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.VpipSM2 = api;
})(this);
