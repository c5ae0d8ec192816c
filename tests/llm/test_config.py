"""Configuration: file (TOML/JSON) + environment, the key from the named variable, errors."""

from __future__ import annotations

import pytest

from ascendopt.llm.cache import SQLiteCache
from ascendopt.llm.client import open_client
from ascendopt.llm.config import ConfigError, LLMConfig, load_config
from ascendopt.llm.errors import LLMError

TOML = """
base_url = "http://example.invalid/v1"
model = "base-model"
api_key_env = "MY_KEY"
temperature = 0
max_tokens = 512
timeout_s = 30
max_retries = 5

[models]
refiner = "big-model"

[prices.big-model]
prompt = 3
completion = 15
"""


def test_toml_file(tmp_path):
    p = tmp_path / "llm.toml"
    p.write_text(TOML)
    cfg = load_config(p, env={"MY_KEY": "secret"})
    assert cfg.base_url == "http://example.invalid/v1" and cfg.configured
    assert cfg.model_for("refiner") == "big-model" and cfg.model_for("distiller") == "base-model"
    assert (cfg.temperature, cfg.max_tokens, cfg.timeout_s, cfg.max_retries) == (0.0, 512, 30.0, 5)
    assert isinstance(cfg.temperature, float)
    assert cfg.api_key == "secret"
    cfg.require("refiner")
    assert cfg.price("big-model", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cfg.price("base-model", 1000, 1000) == 0.0
    assert "api_key" not in cfg.to_dict() and "secret" not in repr(cfg)


def test_json_file_and_env_override(tmp_path):
    p = tmp_path / "llm.json"
    p.write_text('{"base_url": "http://file/v1", "model": "file-model", "max_tokens": 100}')
    env = {"ASCENDOPT_LLM_BASE_URL": "http://env/v1", "ASCENDOPT_LLM_MODEL": "env-model",
           "ASCENDOPT_LLM_API_KEY": "k"}
    cfg = load_config(p, env=env)
    assert (cfg.base_url, cfg.model, cfg.max_tokens, cfg.api_key) == ("http://env/v1", "env-model", 100, "k")


def test_env_only_and_unconfigured():
    cfg = load_config(None, env={"ASCENDOPT_LLM_BASE_URL": "http://env/v1", "ASCENDOPT_LLM_MODEL": "m"})
    assert cfg.configured and cfg.api_key == ""
    empty = load_config(None, env={})
    assert not empty.configured
    assert open_client(None, env={}) is None  # offline: every role uses its offline implementation


def test_missing_key_error():
    cfg = load_config(None, env={"ASCENDOPT_LLM_BASE_URL": "http://env/v1", "ASCENDOPT_LLM_MODEL": "m"})
    with pytest.raises(LLMError) as ei:
        cfg.require("refiner")
    assert ei.value.kind == "not_configured" and "ASCENDOPT_LLM_API_KEY" in str(ei.value)
    with pytest.raises(LLMError):
        open_client(None, env={"ASCENDOPT_LLM_BASE_URL": "http://env/v1", "ASCENDOPT_LLM_MODEL": "m"})


def test_missing_model_for_role():
    with pytest.raises(LLMError) as ei:
        LLMConfig(base_url="http://x/v1", models={"refiner": "r"}, api_key="k").require("distiller")
    assert ei.value.kind == "not_configured" and "distiller" in str(ei.value)


@pytest.mark.parametrize("text,msg", [
    ('base_url = "x"\nmodle = "typo"\n', "unknown field"),
    ('api_key = "sk-123"\n', "environment variable"),
    ('max_tokens = "many"\n', "wrong type"),
    ('[models]\nwriter = "m"\n', "unknown LLM role"),
    ('base_url = \n', "not valid TOML"),
])
def test_bad_files(tmp_path, text, msg):
    p = tmp_path / "llm.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=msg):
        load_config(p, env={})


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError):
        load_config(tmp_path / "nope.toml", env={})


def test_open_client_caches_in_db(tmp_path):
    env = {"ASCENDOPT_LLM_BASE_URL": "http://env/v1", "ASCENDOPT_LLM_MODEL": "m", "ASCENDOPT_LLM_API_KEY": "k"}
    c = open_client(None, db=tmp_path / "a.db", env=env)
    assert c is not None and isinstance(c.cache, SQLiteCache)
    c.close()
