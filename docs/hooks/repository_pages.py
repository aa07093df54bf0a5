"""mkdocs hook: the repository's own pages the guides link to (the README, CONTRIBUTING.md and
each plugin's README, outside docs/) are built into the site under ``repo/`` (left out of the
nav), and every link between them and the guides is pointed at the page's place in the site,
so that no link of the built site is dead."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files, InclusionLevel

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", "CONTRIBUTING.md",
         *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("plugins/*/README.md"))]
LINK = re.compile(r"(\]\()([^)\s#:]+)([#)])")  # a relative link (no scheme)


def on_files(files: Files, config: Any) -> Files:
    for page in PAGES:
        files.append(File.generated(config, f"repo/{page}", abs_src_path=str(ROOT / page),
                                    inclusion=InclusionLevel.NOT_IN_NAV))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Each relative link, resolved where its page lives in the repository, points at the
    target's place in the site: a guide (docs/...) or a repository page (repo/...)."""
    site_dir = posixpath.dirname(page.file.src_uri)
    in_repo = page.file.src_uri.removeprefix("repo/") if page.file.src_uri.startswith("repo/") else (
        f"docs/{page.file.src_uri}")

    def retarget(match: re.Match[str]) -> str:
        target = posixpath.normpath(posixpath.join(posixpath.dirname(in_repo), match.group(2)))
        if posixpath.join(target, "README.md") in PAGES:  # (a plugin's folder: its README)
            target = posixpath.join(target, "README.md")
        if target in PAGES:
            site_target = f"repo/{target}"
        elif target.startswith("docs/") and target.endswith(".md"):
            site_target = target.removeprefix("docs/")
        else:
            return match.group(0)
        return f"{match.group(1)}{posixpath.relpath(site_target, site_dir or '.')}{match.group(3)}"

    return LINK.sub(retarget, markdown)
