"""Turn mkdocs-jupyter's notebook HTML into the site's own markup.

mkdocs-jupyter (nbconvert's JupyterLab template) renders the cells well but wraps them for a page of
their own: 600 KB of inline JupyterLab CSS in a fixed light theme, inline scripts (a clipboard element,
a MathJax stub, a Mermaid loader that imports from a CDN) and its own copy buttons. Our pages allow no
inline style or third-party script (hooks/content_security_policy.py) and follow the reader's palette.
So this keeps what the notebook says — each cell's rendered Markdown and highlighted code, in order —
and re-emits it the way every other page on the site is written:

- Markdown cells: their HTML, headings with Material's permalink;
- code cells: a Material code block (Pygments classes, Material's copy button, dark mode);
- `exercise` / `check` cells: the same, under a label that says what the reader does with them;
- `solution` cells: inside a collapsed "Solution" panel, like the answer panels on question pages.

Pure (HTML in, HTML out) and unit-tested in tests/hooks/test_lab_html.py.
"""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag

LABELS = {  # what a tagged code cell asks of the reader
    "exercise": "Exercise — edit this cell",
    "check": "Check — fails until the exercise above is solved",
}


class NotebookHTMLError(ValueError):
    """mkdocs-jupyter's output is not shaped as this module expects (a version change, or outputs)."""


def tidy_notebook(html: str, page: str) -> str:
    """The notebook's cells as Material markup; `page` names the page in errors."""
    soup = BeautifulSoup(html, "html.parser")
    cells = soup.select('[id^="cell-id="]')
    if not cells:
        raise NotebookHTMLError(f"{page}: no notebook cells found in mkdocs-jupyter's HTML")
    return "\n".join(_cell(cell, page) for cell in cells)


def _cell(cell: Tag, page: str) -> str:
    classes = cell.get("class", [])
    if "jp-MarkdownCell" in classes:
        return _markdown(cell, page)
    if cell.select_one(".jp-OutputArea-output"):
        raise NotebookHTMLError(f"{page}: a cell has outputs; labs are rendered without outputs (execute: false)")
    tags = [tag.get_text(strip=True) for tag in cell.select(".cell-tag")]
    code = _code_block(cell, page, drop_title="solution" in tags)
    if "solution" in tags:
        return f'<details class="success lab-solution">\n<summary>Solution</summary>\n{code}\n</details>'
    label = next((LABELS[tag] for tag in tags if tag in LABELS), "")
    if not label:
        return code
    kind = tags[0]
    return f'<div class="lab-cell lab-cell--{kind}">\n<p class="lab-cell__label">{label}</p>\n{code}\n</div>'


def _markdown(cell: Tag, page: str) -> str:
    rendered = cell.select_one(".jp-RenderedMarkdown")
    if rendered is None:
        raise NotebookHTMLError(f"{page}: a Markdown cell without rendered Markdown")
    for anchor in rendered.select("a.anchor-link"):  # nbconvert's ¶ -> Material's permalink (search skips it)
        anchor["class"] = ["headerlink"]
        anchor["title"] = "Permanent link"
    return rendered.decode_contents().strip()


def _code_block(cell: Tag, page: str, drop_title: bool = False) -> str:
    pre = cell.select_one(".highlight-ipynb pre")
    if pre is None:
        raise NotebookHTMLError(f"{page}: a code cell without highlighted source")
    code = pre.decode_contents()
    if code.startswith("<span></span>"):  # Pygments' empty first span, kept by Material outside <code>
        code = code[len("<span></span>") :]
    if drop_title:  # the `#@title` line Colab needs (hooks/lab_format.py): the panel is titled already
        first, _, rest = code.partition("\n")
        if "@title" not in first:
            raise NotebookHTMLError(f"{page}: a solution cell without its #@title line (hooks/lab_format.py)")
        code = rest
    return f'<div class="language-python highlight"><pre><span></span><code>{code.rstrip()}</code></pre></div>'


def lab_links(href: str, download_name: str, notebook_path: str, repository: str, branch: str) -> str:
    """The bar under a lab's title: download the `.ipynb` next to the page, or open the repository's copy in Colab.

    `notebook_path` is the committed notebook's path in the repository (`snippets/tensors/lab.ipynb`);
    Colab opens notebooks straight from GitHub at colab.research.google.com/github/<owner>/<repo>/blob/….
    """
    github = "https://github.com/"
    if not repository.startswith(github):
        raise ValueError(f"extra.source.repository must be a GitHub URL for Colab links, got {repository!r}")
    colab = f"https://colab.research.google.com/github/{repository[len(github):].strip('/')}/blob/{branch}/{notebook_path}"
    return (
        '<p class="lab-links">'
        f'<a class="md-button md-button--primary" href="{href}" download="{download_name}">'
        "Download the notebook</a> "
        f'<a class="md-button" href="{colab}" target="_blank" rel="noopener">Open in Colab'
        '<span class="drill-sr-only"> (opens in a new tab)</span></a></p>\n'
        '<p class="lab-how">Run it top to bottom: each <em>check</em> cell fails until you solve the '
        "<em>exercise</em> above it. The solutions are collapsed; open one only after you have tried.</p>"
    )


def lab_status(badges: list[str], date: str) -> str:
    """One line under a lab's title: which test runs executed it, solved and unsolved, as it is now."""
    if not badges:
        return (
            '<p class="verification-status verification-status--none">Unverified build: no test report '
            "says this lab ran as it is now.</p>"
        )
    return (
        f'<p class="verification-status">Verified: {" ".join(badges)} — ran top to bottom with the '
        f"solutions in place, and every check failed on its unsolved exercise ({date})</p>"
    )


def insert_after_title(html: str, extra: str) -> str:
    """`extra` right after the page's `<h1>` (or first, when the notebook has no title)."""
    end = html.find("</h1>")
    if end == -1:
        return f"{extra}\n{html}"
    end += len("</h1>")
    return f"{html[:end]}\n{extra}{html[end:]}"
