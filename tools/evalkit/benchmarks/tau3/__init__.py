"""Tau3-Banking (NeMo Gym `tau2` agent, `banking_knowledge` with BM25 + grep): its pin and
run shape (facts.py). Scored by the generic gym adapter under its own name."""
