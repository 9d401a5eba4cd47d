"""The key map, as a modal screen (`?`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

# Lists rather than a table: a Markdown table rules off every row and needs twice the height.
HELP = """\
### Everywhere

- `?` this help · `ctrl+p` command palette (practise, mock exam, bank, history, theme)
- `ctrl+t` light / dark theme · `ctrl+q` quit

### Dashboard

- `enter` practise the plan (towards your exam date: `quizzer plan --exam YYYY-MM-DD`)
- `m` redo my mistakes (questions whose last answer was wrong, fresh numbers) · `n` new questions only
  · `r` reviews only
- `p` practise the highlighted topic (or click it twice) · `↑` `↓` choose a topic
- `tab` topics / past papers (each paper's year, term, codes and the topics it examines)
- `e` mock exam · `b` bank browser · `h` history
- Tries, Acc and mistakes count every answer to a question that lists the topic. The mastery bar
  weighs them: a wrong answer lowers only its question's main topic (the question does not say which
  of its other topics failed), and a right one right after seeing the solution counts less.

### Practice

- `enter` submit the answer · `escape` (or `q` once answered) end the sitting: its summary, then
  the dashboard
- in the browser (`quizzer serve`), `ctrl+a` selects the answer so typing replaces it; in a terminal
  it goes to the start of the line
- `ctrl+s` skip this question · `ctrl+r` reveal the solution without answering (not counted)
- `n` or `enter` the next question, once the feedback shows; `↑` `↓` scroll it
- after a wrong or partial answer: `t` try again on the same numbers, or `enter` the solution (your
  first answer is what counts for mastery; the second try shows in your history)
- choices: `↑` `↓` or a letter `a`…`h` picks an option; select-all questions: `space` or a letter
  toggles, `enter` submits
- recall cards: write your answer in the box (or think it), `enter` shows the model answer beside
  it, then rate yourself `1` again · `2` hard · `3` good · `4` easy

- order questions: type the steps' letters in order (`c` `a` `d` `b`; the last falls into place),
  `backspace` takes one back; or `shift+↑` `shift+↓` (`ctrl+↑` `ctrl+↓`, `K` `J`) move the highlighted step
- multi-part questions: `enter` answers a part and goes on to the next; `ctrl+b` back to the part before
- `pageup` `pagedown` scroll a long question; `ctrl+o` gives it the whole screen (the mock exam too),
  and again brings your answer back as it was

### Mock exam

- choosing a paper: `↑` `↓` and `enter` start the highlighted paper · `r` new numbers (another seed)
  · `t` timer: 1, 2, 3 or 5 minutes per question, or none · `escape` back
- sitting it: nothing is marked until you finish; `ctrl+←` `ctrl+→` (or `[` `]`) previous / next
  question, every answer can be changed · `ctrl+f` finish and see it marked
  · `pageup` `pagedown` scroll a long question · `escape` leave (it asks first; answers so far are kept)

### Bank browser

- `/` search by key, title or topic; `tab` on to the topic, week, paper and kind filters
- `↑` `↓` choose a question, previewed with its solution · `p` practise it, with fresh numbers each time
- `+` `-` the next / previous seed (fresh numbers) · `escape` back

### History

- `t` choose a topic to chart · `escape` back

### Typed answers

Written the way people write them: `4,204,032`, `6.99e-4`, `1/sqrt(2)`, `e^2/(e^2+e)`,
`[0.5, 1]`, `1 0; 0 1`, `[B, T, 64]`, `2x4x3x5`. The line under the input shows how your
answer is read before you submit it; an answer that cannot be read is never counted.
"""


class HelpScreen(ModalScreen[None]):
    """The keys of every screen; escape, `q` or `?` closes it."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help") as box:
            box.border_title = "quizzer — keys"
            box.border_subtitle = "escape closes"
            yield Markdown(HELP)

    def on_screen_resume(self) -> None:
        """Opened again (the app keeps this screen): from the top, as the first time."""
        self.query_one("#help", VerticalScroll).scroll_home(animate=False)
