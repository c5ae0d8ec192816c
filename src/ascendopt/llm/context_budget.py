"""A token budget for the context of an LLM request, filled in tiers.

A request's context is a list of :class:`Part` s (the kernel, each host file, the diagnosis,
each retrieved experience, the failure rules), each in one tier:

* ``always``: sent whole whatever the budget (the kernel entry, the diagnosis, the rules: the
  request makes no sense without them);
* ``summarise``: sent whole when it fits, else replaced by its summary (a host file by its head
  and tail; an experience by its title, family, mechanism and measured effect, without the
  diff);
* ``drop``: summarised first, then left out when even the summary does not fit.

:func:`fit` starts from everything whole and, while the estimated tokens of the whole request
(the template's own text plus every part) exceed the budget, first summarises the
summarisable parts from the last to the first (parts are given most important first:
experiences best hit first, the kernel's own headers before the host), then drops the
droppable ones from the last to the first. What it did is returned (:class:`Fitted`) and
recorded by the caller; when the ``always`` parts alone exceed the budget the request is
sent anyway with ``over`` set, rather than cutting the kernel the model must edit.

Every role that sends kernel, host or experience text (the refiner's proposals and repairs,
the rewinder, the distiller, the tiling mutator) builds its parts with the helpers here
(:func:`source_parts` for an operator's files) and renders its prompt through one
:class:`RoleBudget`, which fits the parts to the configured budget (``context_tokens`` of the
client's :class:`~ascendopt.llm.config.LLMConfig`) and appends what it did to
:attr:`RoleBudget.fits` (tokens, summarised, dropped, over).

Tokens are estimated, not counted: :data:`CHARS_PER_TOKEN` characters per token, a
conservative figure for C++ source (BPE tokenizers average 3.5-4 characters per token on
code), so the estimate errs on the long side and the real prompt stays within the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ascendopt.llm.prompts import messages
from ascendopt.transforms.families import FAMILIES

TIERS = ("always", "summarise", "drop")
CHARS_PER_TOKEN = 3.0


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def clip(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 3 // 4], text[-(limit // 4):]
    return f"{head}\n... [{len(text) - len(head) - len(tail)} characters cut] ...\n{tail}"


@dataclass
class Part:
    """One piece of context.

    Attributes:
        group: The prompt placeholder it goes into (parts of a group are joined).
        name: Its name in the report (a file path, an experience id).
        text: The whole text.
        tier: One of :data:`TIERS`.
        summary: What it becomes when summarised (``summarise`` and ``drop`` tiers).
    """

    group: str
    name: str
    text: str
    tier: str = "always"
    summary: str = ""

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"unknown tier {self.tier!r} ({', '.join(TIERS)})")


@dataclass
class Fitted:
    """The fitted context: each group's text, and what was summarised and dropped."""

    values: dict[str, str]
    tokens: int
    budget: int
    summarised: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return 0 < self.budget < self.tokens

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "budget": self.budget, "summarised": self.summarised,
                "dropped": self.dropped, "over": self.over}


def _join(parts: list[Part], state: dict[int, str], groups: Iterable[str], empty: Mapping[str, str]) -> dict[str, str]:
    out = {}
    for g in groups:
        texts = [state[i] for i, p in enumerate(parts) if p.group == g and state[i] != ""]
        gone = sum(1 for i, p in enumerate(parts) if p.group == g and state[i] == "")
        if gone:
            texts.append(f"({gone} more left out to fit the token budget)")
        out[g] = "\n\n".join(texts) or empty.get(g, "(none)")
    return out


def fit(parts: list[Part], budget: int, overhead_tokens: int = 0, empty: Mapping[str, str] | None = None) -> Fitted:
    """The parts fitted to ``budget`` tokens (0: no budget), ``overhead_tokens`` being the
    request's text outside the parts (see the module docstring)."""
    empty = empty or {}
    groups = list(dict.fromkeys(p.group for p in parts))
    state = {i: p.text for i, p in enumerate(parts)}

    def total() -> int:
        return overhead_tokens + sum(estimate_tokens(v) for v in _join(parts, state, groups, empty).values())

    summarised: list[str] = []
    dropped: list[str] = []
    order = list(range(len(parts)))[::-1]
    for tiers, to_summary in ((("summarise", "drop"), True), (("drop",), False)):
        for i in order:
            if budget <= 0 or total() <= budget:
                break
            p = parts[i]
            if p.tier not in tiers or state[i] == "" or (to_summary and state[i] == p.summary):
                continue
            state[i] = p.summary if to_summary else ""
            (summarised if to_summary else dropped).append(p.name)
    summarised = [n for n in summarised if n not in dropped]
    return Fitted(_join(parts, state, groups, empty), total(), budget, summarised, dropped)


def host_parts(op: Any, limit: int) -> list[Part]:
    """Every op_host file as a titled code block (clipped to ``limit`` characters), tier
    ``summarise`` (summary: its first and last lines, about a tenth of ``limit``)."""
    def block(path: str, text: str) -> str:
        return f"#### {path}\n```cpp\n{text.rstrip()}\n```"

    return [Part("host", k, block(k, clip(op.files[k], limit)), "summarise", block(k, clip(op.files[k], limit // 10)))
            for k in sorted(op.host_files())]


def header_parts(op: Any, limit: int) -> list[Part]:
    """The kernel's other op_kernel files (headers holding most of its logic), tier ``drop``."""
    others = sorted(k for k in op.files if k.startswith("op_kernel/") and k != op.kernel_file)
    return [Part("kernel_headers", k, f"#### {k}\n```cpp\n{clip(op.files[k], limit).rstrip()}\n```", "drop",
                 f"#### {k}\n```cpp\n{clip(op.files[k], limit // 10).rstrip()}\n```") for k in others]


def kernel_values(op: Any) -> dict[str, Any]:
    """The prompt values every kernel-editing role sends whole (tier ``always``): the
    operator's names, the kernel entry file and its path, the optimization families."""
    return {"op_name": op.name, "op_type": op.op_type, "kernel_path": op.kernel_file,
            "kernel": op.files[op.kernel_file].rstrip(),
            "families": "\n".join(f"- {k}: {v}" for k, v in FAMILIES.items())}


#: The text of the part groups of :func:`source_parts` when an operator has no such file.
SOURCE_EMPTY = {"host": "(none)", "kernel_headers": "(none)"}


def source_parts(op: Any, limit: int) -> list[Part]:
    """An operator's files besides the kernel entry: its other op_kernel files (tier ``drop``)
    then its host files (tier ``summarise``), each clipped to ``limit`` characters; the host
    files are summarised first, the headers dropped last (see :func:`fit`)."""
    return header_parts(op, limit) + host_parts(op, limit)


def text_part(group: str, name: str, text: str, limit: int, tier: str = "summarise") -> Part:
    """``text`` clipped to ``limit`` characters, summarised to a tenth of that."""
    return Part(group, name, clip(text, limit).rstrip(), tier, clip(text, max(1, limit // 10)).rstrip())


def configured_budget(client: Any, tokens: int | None = None) -> int:
    """``tokens`` when given, else the client's configured ``context_tokens`` (0 without a
    client or a configuration: no budget)."""
    return tokens if tokens is not None else int(getattr(getattr(client, "config", None), "context_tokens", 0))


@dataclass
class RoleBudget:
    """The token budget of one LLM role's requests and the record of every fit.

    Attributes:
        role: The role (its prompt template is ``prompts/<role>.md``).
        budget: Tokens per request (0: no budget).
        fits: One entry per rendered request: what the caller passed as ``record`` (attempt,
            digest, section) and :meth:`Fitted.to_dict`.
    """

    role: str
    budget: int
    fits: list[dict[str, Any]] = field(default_factory=list)

    def messages(self, values: Mapping[str, object], parts: list[Part], empty: Mapping[str, str],
                 section: str = "user", **record: Any) -> list[dict[str, str]]:
        """The chat messages of the role's ``section`` with ``values`` and the ``parts``
        fitted to the budget; ``empty`` gives each part group's text when it has no part (every
        group the template uses must be in it)."""
        groups = {g: "" for g in empty}
        bare = messages(self.role, {**values, **groups}, user=section)
        got = fit(parts, self.budget, sum(estimate_tokens(m["content"]) for m in bare), empty)
        self.fits.append({**record, "section": section, **got.to_dict()})
        return messages(self.role, {**values, **empty, **got.values}, user=section)
