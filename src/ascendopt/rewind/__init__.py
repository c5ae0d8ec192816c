"""Optimization Rewind: de-optimize strong operators one motif at a time, keep the removals
that measurably hurt, distill each kept pair into an experience (see DESIGN.md)."""
