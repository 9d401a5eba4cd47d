// quizzer serve: keyboard focus on the app as soon as it is on screen, so the first key a student
// types (enter on the dashboard) reaches it without a click first.  textual.js makes the terminal on
// window load; its input is xterm.js's hidden textarea, which we focus once it exists, and again
// when the window regains focus (coming back from another tab).
(function () {
  function focusTerminal() {
    const input = document.querySelector(".xterm-helper-textarea");
    if (input && document.activeElement !== input && !document.body.classList.contains("-closed")) {
      input.focus();
      return true;
    }
    return Boolean(input);
  }
  window.addEventListener("load", function () {
    const poll = setInterval(function () { if (focusTerminal()) clearInterval(poll); }, 50);
  });
  window.addEventListener("focus", focusTerminal);
})();
