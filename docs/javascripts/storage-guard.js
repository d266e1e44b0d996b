/* A corrupt setting in localStorage must not stop the site (hooks/storage_guard.py loads this file).
 *
 * Material reads its stored settings (the palette, …) with __md_get, which calls JSON.parse unguarded:
 * one value that is not JSON throws, and Material's scripts stop (search, palette, instant navigation).
 * This wraps __md_get: a value that cannot be read is removed and read as absent, so Material falls
 * back to its defaults and writes a good value again. Values of the wrong shape are Material's to
 * check (it does). The progress marks have their own checks in drills.js.
 */
(function () {
  "use strict";

  var read = window.__md_get;
  if (typeof read !== "function") return;

  window.__md_get = function (key, storage, scope) {
    try {
      return read.apply(this, arguments);
    } catch (error) {
      try {
        (storage || window.localStorage).removeItem((scope || window.__md_scope).pathname + "." + key);
      } catch (ignored) {
        /* storage is blocked: nothing to remove */
      }
      return null;
    }
  };
})();
