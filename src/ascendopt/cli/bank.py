"""``ascendopt bank``: list, show (with lineage), search, rules, export and import experiences."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich import box
from rich.table import Table

from ascendopt.cli.common import console, fail
from ascendopt.bank.transfer import export_json, import_json, open_default

bank_app = typer.Typer(no_args_is_help=True,
                       help="The experience bank: list, show, search, rules, export, import.")

_BANK_HELP = "Bank file (default: the bank shipped with ascendopt, read-only)."


def _open(bank_file: Optional[Path], write: bool = False):
    from ascendopt.bank.store import BankError, ExperienceBank

    try:
        if bank_file is None:
            if write:
                fail("give the bank to write with --bank FILE")
            return open_default()
        if not write and not bank_file.exists():
            fail(f"{bank_file}: no such bank file")
        return ExperienceBank(bank_file, readonly=not write)
    except (BankError, OSError) as e:
        fail(str(e))


@bank_app.command("list")
def list_cmd(bank_file: Optional[Path] = typer.Option(None, "--bank", help=_BANK_HELP),
             family: Optional[str] = typer.Option(None, "--family", help="Only this family."),
             as_json: bool = typer.Option(False, "--json")) -> None:
    """List the experiences (id, family, speedup, support, title)."""
    bank = _open(bank_file)
    entries = bank.entries(family)
    if as_json:
        print(json.dumps([{"id": e.id, "family": e.experience.family, "title": e.experience.title,
                           "speedup": e.experience.speedup, "support": e.support, "seen_on": list(e.seen_on),
                           "rewrite": e.experience.applicability.get("rewrite", "")} for e in entries], indent=2))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("id", "family", "x", "n", "title / measured on"):
        table.add_column(col, overflow="fold", no_wrap=col == "id", justify="right" if col in ("x", "n") else "left")
    for e in entries:
        table.add_row(e.id, e.experience.family, f"{e.experience.speedup:.2f}", str(e.support),
                      f"{e.experience.title} ({', '.join(e.seen_on)})")
    console.print(table)
    fams = bank.families()
    console.print(f"{len(entries)} experiences; families: {', '.join(f'{k} {v}' for k, v in fams.items()) or 'none'}")


@bank_app.command("show")
def show_cmd(exp_id: str = typer.Argument(..., help="Experience id (or a unique prefix)."),
             bank_file: Optional[Path] = typer.Option(None, "--bank", help=_BANK_HELP),
             as_json: bool = typer.Option(False, "--json")) -> None:
    """Print one experience whole (fields, evidence, diff, values, the proposals it led to),
    or the lineage of a candidate digest (diagnosis, experiences, rules, outcome)."""
    from ascendopt.bank.lineage import candidate_lineage, experience_lineage, lineage_lines

    bank = _open(bank_file)
    e = bank.get(exp_id)
    if e is None:
        chain = candidate_lineage(bank, exp_id) if len(exp_id) >= 6 else []
        if not chain:
            fail(f"no experience or candidate {exp_id!r} (or the prefix is not unique); see `ascendopt bank list`")
        if as_json:
            print(json.dumps(chain, indent=2))
            return
        for entry in chain:
            console.print("\n".join(lineage_lines(entry)), markup=False, highlight=False, soft_wrap=True)
        return
    d = {**e.experience.to_dict(), "support": e.support, "seen_on": list(e.seen_on),
         "lineage": experience_lineage(bank, e.id)}
    if as_json:
        print(json.dumps(d, indent=2))
        return
    x = e.experience
    for k in ("id", "title", "family", "mechanism", "causal_chain", "bottleneck", "reusable_when", "avoid_when"):
        console.print(f"[bold]{k}[/bold]: {d[k]}", highlight=False, soft_wrap=True)
    console.print(f"[bold]applicability[/bold]: {json.dumps(x.applicability)}", highlight=False, soft_wrap=True)
    console.print(f"[bold]expected effect[/bold]: {json.dumps(x.expected_effect)}", highlight=False)
    for side in ("fast", "slow"):
        ev = x.evidence.get(side) or {}
        console.print(f"[bold]{side}[/bold]: {ev.get('latency_us')} us, {ev.get('text', '')}; pipes "
                      f"{json.dumps(ev.get('pipe_ratios', {}))}", highlight=False, soft_wrap=True)
    console.print(f"[bold]seen on[/bold]: {', '.join(e.seen_on)} (support {e.support}; origin {x.origin}; "
                  f"fast {x.source.get('fast_digest', '-')[:12]}, slow {x.source.get('slow_digest', '-')[:12]})",
                  highlight=False)
    lin = d["lineage"]
    console.print("[bold]value[/bold]: " + "; ".join(
        f"{r} {v['mean']:.2f} ({v['tries']} tries: {v['successes']:g} paid, {v['failures']:g} failed)"
        for r, v in lin["values"].items()), highlight=False)
    for o in lin["led_to"]:
        console.print(f"  led to {o['digest'][:12]} on {o['op']} ({o['role']}: {o['rewrite']}): {o['outcome']}",
                      markup=False, highlight=False)
    console.print("[bold]diff (slow -> fast)[/bold]:")
    console.print(x.diff, markup=False, highlight=False, soft_wrap=True)


@bank_app.command("search")
def search_cmd(text: str = typer.Argument(..., help="Words (findings, pipes, instructions, ...)."),
               k: int = typer.Option(5, "--k", min=1, help="How many."),
               bank_file: Optional[Path] = typer.Option(None, "--bank", help=_BANK_HELP),
               as_json: bool = typer.Option(False, "--json")) -> None:
    """Lexical search (BM25) over the experiences' text."""
    bank = _open(bank_file)
    scores = bank.lexical(text)
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    rows = [(bank.get(i), s) for i, s in ranked]
    if as_json:
        print(json.dumps([{"id": e.id, "score": round(s, 4), "family": e.experience.family,
                           "title": e.experience.title, "speedup": e.experience.speedup} for e, s in rows], indent=2))
        return
    if not rows:
        console.print("no experience matches")
    for e, s in rows:
        console.print(f"{e.id}  {s:6.2f}  {e.experience.family:<24} {e.experience.speedup:5.2f}x  {e.experience.title}",
                      highlight=False)


@bank_app.command("rules")
def rules_cmd(bank_file: Optional[Path] = typer.Option(None, "--bank", help=_BANK_HELP),
              all_rules: bool = typer.Option(False, "--all", help="Also the inactive rules (retired by a success)."),
              as_json: bool = typer.Option(False, "--json")) -> None:
    """List the failure rules: a failure recurring for the same rewrite across operators."""
    from ascendopt.bank.rules import rules

    found = rules(_open(bank_file), active_only=not all_rules)
    if as_json:
        print(json.dumps([r.to_dict() for r in found], indent=2))
        return
    if not found:
        console.print("no failure rules")
    for r in found:
        console.print(f"{r.id}  support {r.support}{'' if r.active else ' (inactive)'}  {r.text()}",
                      markup=False, highlight=False, soft_wrap=True)


@bank_app.command("export")
def export_cmd(out: Path = typer.Argument(..., help="JSON file to write."),
               bank_file: Optional[Path] = typer.Option(None, "--bank", help=_BANK_HELP)) -> None:
    """Write every experience to a portable, versioned JSON file."""
    bank = _open(bank_file)
    try:
        n = export_json(bank, out)
    except OSError as e:
        fail(f"cannot write {out}: {e}")
    console.print(f"{n} experiences (with their values and the failure rules) written to {out}")


@bank_app.command("import")
def import_cmd(src: Path = typer.Argument(..., help="JSON export to read."),
               bank_file: Optional[Path] = typer.Option(None, "--bank", help="Bank file to add to (created if missing).")) -> None:
    """Add the experiences of an export (near-identical ones raise the support of those present)."""
    from ascendopt.bank.store import BankError

    if not src.is_file():
        fail(f"{src}: no such file")
    bank = _open(bank_file, write=True)
    try:
        added, merged = import_json(bank, src)
    except BankError as e:
        fail(str(e))
    console.print(f"{added} experiences added, {merged} already present (support raised); bank size {len(bank)}")
