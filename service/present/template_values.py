"""A page's or email's frozen value handed to its templates: its fields become the templates'
variables, so that mypy checks what a template receives and the templates read names, not
dicts."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def template_values(value: DataclassInstance) -> dict[str, object]:
    """The fields of ``value`` as template variables, each as it is (never copied into dicts);
    a field named ``facts`` (an email's ``GameFacts``) is spread among them."""
    values = {field.name: getattr(value, field.name) for field in fields(value)}
    facts = values.pop("facts", None)
    spread = template_values(facts) if is_dataclass(facts) and not isinstance(facts, type) else {}
    return {**spread, **values}
