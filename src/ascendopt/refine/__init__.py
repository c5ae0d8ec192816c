"""Stage I: kernel refinement guided by the experience bank (see DESIGN.md)."""
