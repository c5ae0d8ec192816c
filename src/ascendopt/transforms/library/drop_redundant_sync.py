"""Drop event pairs the queues already imply (optimization ``drop_redundant_sync``, family ``sync_elimination``).

Rewrite ``drop_redundant_sync`` (Stage I, applies it): remove a ``SetFlag<E>(id);
WaitFlag<E>(id);`` pair (with the ``FetchEventID`` declaration feeding only it, and the braces
of a block it leaves empty: :func:`.drop_event_wait.remove_pair`) whose ordering the TPipe
queues already give.

Legality (:mod:`ascendopt.cxx.queues`): a VECIN queue's ``EnQue``/``DeQue`` makes the vector
unit wait for the copy-in of the tile (MTE2 -> V), its ``FreeTensor``/``AllocTensor`` makes the
next copy-in into the buffer wait for the vector unit's use of it (V -> MTE2); a VECOUT queue
carries V -> MTE3 and MTE3 -> V the same way. An explicit pair on ``MTE2_V`` or ``V_MTE2``
orders V against MTE2 work; MTE2 only does GM -> local copies, so when every such copy in the
file fills a tile allocated from a VECIN queue, used for nothing but the copies and its
``EnQue`` (the vector unit only sees it after ``DeQue``), every MTE2 access the pair could
order is already ordered by the queue -- wherever the pair sits, in ``Compute`` after the
``DeQue`` or in a helper method the loop calls. Likewise ``V_MTE3``/``MTE3_V`` when every
local -> GM copy drains a tile dequeued from a VECOUT queue, used for nothing but the copies
and ``FreeTensor`` (no vector instruction writes it after the ``DeQue``). The condition is checked
over every kernel file of the operator (a copy in one header is ordered by a flag in another).
An operator that moves data through a high-level API (``Matmul``) or a GM copy the analysis
cannot classify has no sites.
Events to or from the scalar pipe, and other pipe pairs, are not sites.

Pairs inside a loop of their own function are left to ``drop_event_wait`` (which offers every
such pair and lets validation judge it): the two rewrites never propose the same edit.
``PipeBarrier`` statements are ``drop_barrier``'s (the simulator's same-pipe race check judges
those). The race checker confirms on the candidate that nothing became unordered.
"""

from __future__ import annotations

from ascendopt.cxx.affine import loop_label
from ascendopt.cxx.queues import dma_through_queues, queue_positions
from ascendopt.cxx.sync import flag_pairs, sync_info
from ascendopt.cxx.syntax import LOOPS, ancestors, function_of
from ascendopt.operator import Operator
from ascendopt.transforms.base import Edit, Rewrite, Site, find_node, kernel_parsed
from ascendopt.transforms.library.drop_event_wait import remove_pair
from ascendopt.transforms.registry import Optimization, register


OPTIMIZATION = Optimization(
    name="drop_redundant_sync",
    family="sync_elimination",
    title="Drop SetFlag/WaitFlag pairs the queues' EnQue/DeQue already imply",
    mechanism="A VECIN/VECOUT queue's hand-over already makes the consuming pipe wait for the producing "
              "one for that tile; an extra event pair on the same pipes stalls the consumer until every "
              "instruction the producer has issued so far is done, not just the tile's.",
    bottleneck="A blocking wait per tile between MTE2/MTE3 and V: the pipes idle in turn, the queues' "
               "double buffers cannot overlap copy and compute",
    relieves=("serialized_pipes",),
)

#: event -> the DMA direction whose copies must all go through queues for the pair to be implied
IMPLIED_BY = {"MTE2_V": "load", "V_MTE2": "load", "V_MTE3": "store", "MTE3_V": "store"}


@register
class DropRedundantSync(Rewrite):
    name = "drop_redundant_sync"
    optimization = OPTIMIZATION
    anchors = ("compound_statement",)

    def find(self, op: Operator) -> list[Site]:
        sites = []
        files = kernel_parsed(op)
        positions = {k: v for p in files for k, v in queue_positions(p).items()}
        queued: dict[str, bool] = {}
        for p in files:
            for a, _ in flag_pairs(p):
                info = sync_info(p, a)
                direction = IMPLIED_BY.get(info[1]) if info else None
                fn = function_of(a)
                if direction is None or fn is None:
                    continue
                if any(x.type in LOOPS for x in ancestors(a) if x.start_byte > fn.start_byte):
                    continue  # drop_event_wait's
                if direction not in queued:
                    queued[direction] = all(dma_through_queues(q, direction, positions) for q in files)
                if queued[direction]:
                    side = "VECIN" if direction == "load" else "VECOUT"
                    sites.append(self.site(p, a, f"SetFlag/WaitFlag<{info[1]}>({info[2]}) implied by the {side} "
                                                 f"queues {loop_label(p, a)}", detail=info[1]))
        return sites

    def edits(self, op: Operator, site: Site) -> list[Edit]:
        p = next(q for q in kernel_parsed(op) if q.file == site.file)
        return remove_pair(p, find_node(p, site.start, site.end, "expression_statement"))
