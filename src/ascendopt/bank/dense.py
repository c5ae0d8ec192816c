"""Optional dense retrieval: semantic similarity of a diagnosis to each experience, through an
OpenAI-compatible embeddings endpoint (:meth:`ascendopt.llm.client.LLMClient.embed`).

Plugs into :func:`ascendopt.bank.retrieve.retrieve` as ``dense=`` (the :class:`DenseScorer`
protocol there): its score, ``(1 + cosine) / 2`` in [0, 1], is added as a fourth part. The
experiences' vectors are computed once per scorer (by id) and reused across queries; a
failed request leaves the part at 0 rather than failing the retrieval (lexical, profile and
applicability still rank).
"""

from __future__ import annotations

import math

from ascendopt.bank.store import Entry


def cosine01(a: list[float], b: list[float]) -> float:
    """``(1 + cos(a, b)) / 2``; 0.5 when either vector is zero."""
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    if na == 0 or nb == 0:
        return 0.5
    return (1.0 + sum(x * y for x, y in zip(a, b)) / (na * nb)) / 2.0


class EmbeddingScorer:
    """Dense scores from an embeddings endpoint.

    Args:
        client: An :class:`~ascendopt.llm.client.LLMClient` (its endpoint, key and retries).
        model: The embedding model's name.
    """

    def __init__(self, client, model: str):
        self.client, self.model = client, model
        self._vectors: dict[str, list[float]] = {}
        self.errors: list[str] = []

    def scores(self, query: str, entries: list[Entry]) -> dict[str, float]:
        from ascendopt.llm.errors import LLMError

        todo = [e for e in entries if e.id not in self._vectors]
        try:
            if todo:
                vecs = self.client.embed([e.experience.search_text() for e in todo], self.model)
                self._vectors.update({e.id: v for e, v in zip(todo, vecs)})
            (q,) = self.client.embed([query], self.model)
        except LLMError as err:
            self.errors.append(str(err))
            return {}
        return {e.id: cosine01(q, self._vectors[e.id]) for e in entries if e.id in self._vectors}
