"""mkdocs hook (``hooks:`` in mkdocs.yml): pages of the site made from files outside ``docs/``, so that the site
stands alone while those files stay where GitHub and PyPI show them.

* ``install.md`` and ``quickstart.md``: sections of README.md (:data:`README_PAGES`);
* ``tasks/<benchmark>.md``: each task README (``yaml_tasks/<benchmark>/README.md``).

Relative links are rewritten for the site, in those pages and in every page of ``docs/`` (which link to the files
themselves, so that every link also works where GitHub shows the repository): to a page of ``docs/``, to a generated
page (a README link by the section its anchor names), or (anything else in the repository) left for
``mkdocs build --strict`` to refuse.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Site page -> (title, the README sections it holds, by their "## " heading).
README_PAGES = {
    "install.md": ("Install", ("Install",)),
    "quickstart.md": ("Quick start", ("Quick start", "Demo (offline, CPU)", "Run a real model")),
}
LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def task_pages(root: Path = ROOT) -> dict[str, str]:
    """Site page -> repository file, for every task README."""
    return {
        f"tasks/{readme.parent.name}.md": readme.relative_to(root).as_posix()
        for readme in sorted((root / "yaml_tasks").glob("*/README.md"))
    }


def generated_sources(root: Path = ROOT) -> dict[str, str]:
    """Every generated site page -> the repository file it comes from (the README's pages: ``README.md``)."""
    return {**dict.fromkeys(README_PAGES, "README.md"), **task_pages(root)}


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub and mkdocs make it (lower case, punctuation dropped, spaces as dashes)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def site_target(repository_path: str, root: Path = ROOT, anchor: str = "") -> str | None:
    """The site page a repository file is shown as: ``docs/x.md`` -> ``x.md``; a task README -> its page; README.md
    -> the page holding the section ``anchor`` names; None for a file (or README section) the site does not hold."""
    if repository_path.startswith("docs/"):
        return repository_path.removeprefix("docs/")
    if repository_path == "README.md":
        held = {slug(heading): page for page, (_, headings) in README_PAGES.items() for heading in headings}
        return held.get(anchor)
    pages = {source: page for page, source in task_pages(root).items()}
    return pages.get(repository_path)


def rewrite_links(text: str, source: str, page: str, root: Path = ROOT) -> str:
    """``text`` of repository file ``source`` as site page ``page``: each relative link to a file the site holds
    points to its page (anchors kept); others are left as they are."""

    def replace(match: re.Match) -> str:
        target = match.group(2)
        if re.match(r"[a-z]+:", target):
            return match.group(0)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
        shown = site_target(resolved, root, (match.group(3) or "").removeprefix("#"))
        if shown is None:
            return match.group(0)
        relative = posixpath.relpath(shown, posixpath.dirname(page) or ".")
        return f"{match.group(1)}{relative}{match.group(3) or ''}{match.group(4)}"

    return LINK.sub(replace, text)


def readme_sections(text: str, headings: tuple[str, ...]) -> str:
    """The README's ``## `` sections named ``headings``, in that order."""
    sections = re.split(r"(?m)^(?=## )", text)
    found = {section.splitlines()[0].removeprefix("## ").strip(): section for section in sections[1:]}
    missing = [heading for heading in headings if heading not in found]
    if missing:
        raise ValueError(f"README.md has no section {missing}: update utils/mkdocs_hooks.py README_PAGES")
    return "\n".join(found[heading].rstrip() + "\n" for heading in headings)


def page_text(page: str, root: Path = ROOT) -> str:
    """The Markdown of a generated page."""
    source = generated_sources(root)[page]
    text = (root / source).read_text(encoding="utf-8")
    if page in README_PAGES:
        title, headings = README_PAGES[page]
        text = f"# {title}\n\n" + readme_sections(text, headings)
    return rewrite_links(text, source, page, root)


def on_files(files, config):
    """mkdocs: add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for page in generated_sources():
        files.append(File.generated(config, page, content=page_text(page)))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """mkdocs: a page of ``docs/`` with its links to repository files (README.md, the task READMEs) pointing to their
    site pages."""
    source = page.file.src_uri
    if source in generated_sources():
        return markdown  # already rewritten by page_text
    return rewrite_links(markdown, f"docs/{source}", source)
