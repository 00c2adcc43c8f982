"""Payload: a roguelike engine-builder. Draft parts onto a board, drop marbles down its columns;
parts change a marble's value and path, and each round's total must reach its quota.

The engine decides what happened, the view decides how to show it: `simulate_drop` returns a drop's
total and its ordered event log; the run reducer (run.py) moves an immutable RunState from phase to
phase. See README.md for the modules, the invariants and the input byte.
"""
