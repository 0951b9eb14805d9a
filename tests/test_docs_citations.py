"""The code cites `docs/` only: no file outside the repository, no document that is not there."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

OUTSIDE = re.compile(r"\.\./shared|\b(?:RULINGS|FORMATS|PITFALLS|STYLE)\b")
DOCUMENT = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w-]+\.md)\b")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    files = []
    for name in names:
        path = ROOT / name
        if not path.is_file() or path == Path(__file__).resolve():
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        files.append(path)
    return files


def exists(cited: str) -> bool:
    """A cited document is a path from the root, or a bare name of a page in docs/."""
    return (ROOT / cited).is_file() or (ROOT / "docs" / cited).is_file()


def test_no_file_cites_outside_the_repository() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in tracked_text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []


def test_every_cited_document_exists() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {cited}"
        for path in tracked_text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for cited in DOCUMENT.findall(line)
        if not exists(cited)
    ]
    assert found == []
