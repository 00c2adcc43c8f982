"""Versus: 2–4 Pengo boards on one shared deal, lockstep frames, the attack exchange, replays and bots."""
