"""The LLM layer: one OpenAI-compatible client for every role, its configuration, a response
cache, usage accounting, prompt templates (``prompts/<role>.md``), strict answer parsing and
a strict unified-diff applier. Everything here is optional: without a configuration the
roles use their offline implementations."""
