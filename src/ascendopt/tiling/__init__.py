"""Stage II: the evolvable tiling template, its knob space, and ask/tell search strategies."""

from ascendopt.tiling.domain import Domain
from ascendopt.tiling.knobs import Knob, Span, extract_knobs
from ascendopt.tiling.space import REGION_KEY, Config, KnobSpace
from ascendopt.tiling.template import (
           MARK_END,
           MARK_START,
           TemplateError,
           TilingTemplate,
           find_template,
)

__all__ = [
           "MARK_END",
           "MARK_START",
           "REGION_KEY",
           "Config",
           "Domain",
           "Knob",
           "KnobSpace",
           "Span",
           "TemplateError",
           "TilingTemplate",
           "extract_knobs",
           "find_template",
]
