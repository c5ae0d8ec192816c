"""``ascendopt llm``: check the configured LLM endpoint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.text import Text

from ascendopt.cli.common import console, err_console

llm_app = typer.Typer(no_args_is_help=True, help="The optional LLM endpoint (OpenAI-compatible): check it.")


@llm_app.callback()
def _group() -> None:
    """The optional LLM endpoint (OpenAI-compatible). Without one every role runs offline."""


def _say(ok: bool, msg: str, as_json: bool, code: int, payload: dict) -> None:
    if as_json:
        print(json.dumps({"ok": ok, "message": msg, **payload}, indent=2))
    elif ok:
        console.print(Text.assemble(("ok:", "green"), " ", msg), soft_wrap=True)
    else:
        err_console.print(Text.assemble(("error:", "red"), " ", msg), soft_wrap=True)
    raise typer.Exit(code)


@llm_app.command("check")
def check_cmd(
    config: Optional[Path] = typer.Option(None, "--llm", help="LLM configuration file (TOML or JSON); the "
                                          "environment (ASCENDOPT_LLM_BASE_URL, ASCENDOPT_LLM_MODEL, the key "
                                          "variable) overrides it."),
    role: Optional[str] = typer.Option(None, "--role", help="Check the model of this role (default: the default model)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Say whether the configured endpoint answers (its model list names the model, or a
    1-token completion succeeds).

    Exit status: 0 it answers; 1 it does not; 2 no LLM is configured (or the configuration is invalid).
    """
    from ascendopt.llm.client import LLMClient
    from ascendopt.llm.config import ConfigError, load_config
    from ascendopt.llm.errors import LLMError

    try:
        cfg = load_config(config)
    except ConfigError as e:
        _say(False, f"invalid LLM configuration: {e}", as_json, 2, {"configured": False})
    if not cfg.configured:
        _say(False, "no LLM configured (set ASCENDOPT_LLM_BASE_URL and ASCENDOPT_LLM_MODEL, or pass --llm CONFIG); "
                    "every role runs offline", as_json, 2, {"configured": False})
    client = LLMClient(cfg, None)
    try:
        res = client.check(role)
    except LLMError as e:
        _say(False, str(e), as_json, 2 if e.kind == "not_configured" else 1,
             {"configured": e.kind != "not_configured", "base_url": cfg.base_url})
    except ValueError as e:  # unknown role
        _say(False, str(e), as_json, 2, {"configured": True, "base_url": cfg.base_url})
    finally:
        client.close()
    d = res.to_dict()
    d.pop("ok"), d.pop("message")
    _say(res.ok, res.message + (f" ({res.seconds:.2f} s)" if not as_json else ""), as_json, 0 if res.ok else 1,
         {"configured": True, **d})
