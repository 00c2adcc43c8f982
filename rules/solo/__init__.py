"""pengo-solo: one Pengo board for one player (the daily challenge), through the same `Ruleset` seam."""
