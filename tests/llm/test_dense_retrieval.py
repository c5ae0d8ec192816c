from ascendopt.bank.dense import EmbeddingScorer, cosine01
from ascendopt.bank.retrieve import retrieve
from ascendopt.profile.diagnosis import Diagnosis

from ..bank.test_retrieve import bank_of_three


def test_dense_part_ranks_the_semantically_closest_experience_and_reuses_vectors(client, server):
    scorer = EmbeddingScorer(client, "fake-embed")
    d = Diagnosis(text="use vector instructions not scalar loops")
    hits = retrieve(bank_of_three(), d, k=3, dense=scorer)
    assert all("dense" in h.parts for h in hits)
    best = max(hits, key=lambda h: h.parts["dense"])
    assert best.experience.family == "vectorization"
    n = len(server.requests)
    retrieve(bank_of_three(), d, k=3, dense=scorer)
    assert len(server.requests) == n + 1  # only the query is embedded again
    assert client.usage.requests >= 2


def test_a_failing_endpoint_leaves_the_other_parts(client, server):
    server.httpd.shutdown()
    scorer = EmbeddingScorer(client, "fake-embed")
    hits = retrieve(bank_of_three(), Diagnosis(findings=["scalar_heavy"]), k=1, dense=scorer)
    assert hits and hits[0].parts["dense"] == 0.0 and scorer.errors


def test_cosine01():
    assert cosine01([1, 0], [1, 0]) == 1.0 and cosine01([1, 0], [-1, 0]) == 0.0 and cosine01([0, 0], [1, 0]) == 0.5
