// AscendOptimizer simulator (host side): knob slots (see src/ascendopt/slots.py).
// Force-included into parameterized host sources only. A slot keeps the type of the
// literal it replaces; its value comes from the environment variable AO_KNOB_SLOTS
// ("v0,v1,..."), read once at first use (namespace-scope initializers included).
#pragma once

extern "C" long long ao_knob_slot(int index, long long fallback);

#define AO_KNOB_CONSTEXPR const
#define AO_KNOB_SLOT(index, literal) \
    (static_cast<decltype(literal)>(::ao_knob_slot((index), static_cast<long long>(literal))))
