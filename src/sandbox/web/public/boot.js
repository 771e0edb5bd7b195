/** Loads the page; if a module fails to load (a missing file, a syntax error), says so instead of hanging. */
import("./app.js").catch((err) => {
  const app = document.getElementById("app");
  if (app) app.textContent = `The sandbox page failed to load: ${err?.message ?? err}`;
});
