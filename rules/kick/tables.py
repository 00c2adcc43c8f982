"""Every number of the Pengo rules, with the Z80 routine it comes from.

The rules, the compendium (`floe rules`) and the client read these; nothing else in `rules/` writes a
game number literally. Addresses are program addresses in jotd666/pengo500 `src/pengo_z80.asm`
(see ../shared/PENGO-FACTS.md and PENGO-RULES.md). Durations are in main-loop passes or in
ticks of the global pass counter, as the arcade times them.
"""

from __future__ import annotations

from typing import Final

# --- time -----------------------------------------------------------------------------------------
#: Main-loop passes per second (jotd's calibration; not in the listing).
PENGO_LOOP_HZ: Final = 780
#: Passes per vblank: the versus frame is 1/60 s, and 780 / 60 = 13 (the listing's clock counts
#: vblanks; MAME's 60.6 Hz would make it 12.87 — we keep whole passes, a documented deviation).
VBLANK_PASSES: Final = 13
#: A game-second is 62 vblanks ($0081–$0093 counts 0..61).
GAME_SECOND_VBLANKS: Final = 62
#: Game-seconds per game-minute ($0081–$0093); a round over a minute earns no time bonus ($0A2B).
GAME_MINUTE_SECONDS: Final = 60
#: Passes per game-second and per game-minute (the hurry and flee clocks).
GAME_SECOND_PASSES: Final = GAME_SECOND_VBLANKS * VBLANK_PASSES
GAME_MINUTE_PASSES: Final = GAME_MINUTE_SECONDS * GAME_SECOND_PASSES
#: Vblanks per second of `timing="seconds"` (780 / 13 = 60).
VBLANK_HZ: Final = PENGO_LOOP_HZ // VBLANK_PASSES
#: Passes per versus frame (1/60 s): one vblank, so a frame is a whole number of passes.
PASSES_PER_FRAME: Final = VBLANK_PASSES
#: The most one `tick(dt)` may advance, in seconds (the seed API's limit; not in the listing).
MAX_TICK_SECONDS: Final = 10.0

#: Ticks of the global pass counter ($8824 low byte, PENGO-RULES §0): a tick fires on passes that
#: are multiples of its length.
WRAP: Final = 256  # low byte = 0: pauses, stuns, eaten, squashed, ready, push pose
T64: Final = 64  # &$3F = 0: hatch and vanish stages, egg-shell fade
T32: Final = 32  # &$1F = 0: block breaking, break and shake poses
T16: Final = 16  # &$0F = 0: egg-cell flash after a break

# --- geometry -------------------------------------------------------------------------------------
PENGO_COLS: Final = 13
PENGO_ROWS: Final = 15
#: Pengo's respawn candidates, in order ($0D66, table $0D9D), skipping egg and diamond cells.
PENGO_RESPAWN: Final = ((6, 6), (6, 5), (6, 7), (5, 6), (7, 6), (5, 7), (7, 7), (5, 5), (7, 5))
#: After a death each Sno-Bee slot goes to the first free cell down (+1) or up (−1) the border column
#: at its corner ($0DD0): slot 1 top left, 2 bottom right, 3 top right, 4 bottom left; −1 is the last
#: column or row.
RESPAWN_CORNERS: Final = ((0, 0, 1), (-1, -1, -1), (-1, 0, 1), (0, -1, -1))
#: Contact is equality of 8-pixel tiles ($4BE6, $4C55): pixel >> 3.
CONTACT_TILE_SHIFT: Final = 3
#: The window a block at a cell centre catches Sno-Bees in ($4467–$44E8), per direction of travel, as
#: pixel offsets from the block (x from, x to, y from, y to): a cell ahead and half a cell to each side.
CATCH_WINDOW: Final = {
    "up": (-8, 7, -16, 15),
    "down": (-8, 7, -8, 23),
    "left": (-16, 15, -8, 7),
    "right": (-8, 23, -8, 7),
}

# --- periods (passes per pixel) -------------------------------------------------------------------
PLAYER_PERIOD: Final = 10  # $31DA
SLIDE_PERIOD: Final = 3  # $3293, $43BD
FLEE_PERIOD: Final = 7  # $340A
DODGE_PERIOD: Final = 5  # $35CC
CARRIED_PERIOD: Final = 3  # $3B12
CHEW_EXTRA_PERIOD: Final = 24  # $38F0: chewing creeps in at base + 24
SNOBEE_BASE_PERIOD: Final = 12  # $324E: 12 − ⌊(act−1)/4⌋ − skill
#: Angry when remaining < ⌊(act−1)/4⌋ + 3 ($342E).
ANGRY_BASE: Final = 3
#: Angry Sno-Bees run one period faster (P − 1, $342E); the hurry a further one a minute (P − 1 − minutes,
#: $344B), never below a period of 1.
ANGRY_PERIOD_STEP: Final = 1
#: Cells per second of an enemy whose level gives no speed (the seed API's default; not in the listing).
ENEMY_SPEED: Final = 2.6
#: Sno-Bees on the board at once: 3 in acts 1–4, 4 from act 5 ($326E).
SLOTS_EARLY: Final = 3
SLOTS_LATE: Final = 4
SLOTS_LATE_FROM_ACT: Final = 5
#: The skill DIP (inverted DSW0 bits 7–6): 0 easy … 3 hardest; factory setting 1.
SKILL_MIN: Final = 0
SKILL_MAX: Final = 3
SKILL_FACTORY: Final = 1

# --- eggs and specials ----------------------------------------------------------------------------
#: Eggs per act, Japanese program ($0937): act<3: 6, <8: 8, <12: 10, else 12.
PENGO_EGGS_JAPAN: Final = (6, 6, 8, 8, 8, 8, 8, 10, 10, 10, 10, 12, 12, 12, 12, 12)
#: Export sets (arcade-history; not in this listing): 6, then 8, 9, 10, 11 and 12 from act 6 on.
PENGO_EGGS_EXPORT: Final = (6, 8, 9, 10, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12)
PENGO_DIAMONDS: Final = 3
PENGO_LINE_LENGTH: Final = 3
PENGO_ACTS: Final = 16  # act 17 becomes act 1 ($0930)

# --- scores ---------------------------------------------------------------------------------------
#: One slide pays once, for the number of Sno-Bees it carried ($4587–$45B8): a total, not per enemy.
PENGO_CRUSH_SCORES: Final = (400, 1600, 3200, 6400)
STUNNED_SCORE: Final = 100  # $3A86
EGG_SCORE: Final = 500  # $4AFD: paid when the broken egg's shell is gone
ICE_SCORE: Final = 30  # $49D7: only when Pengo breaks it
LINE_SCORE: Final = 10_000  # $4658
LINE_WALL_SCORE: Final = 5_000  # $4658: on row 0/14 or column 0/12
EXTRA_LIFE_SCORE: Final = 30_000  # $2BDE (DSW0 bit 0 gives 50,000), once
EXTRA_LIFE_SCORE_ALT: Final = 50_000
#: Round-time bonus ($0A2B): (under game-seconds, points); minutes ≠ 0 pays nothing.
PENGO_TIME_BONUS: Final = ((20, 5000), (30, 2000), (40, 1000), (50, 500), (60, 10))
PENGO_LIVES: Final = 3  # DSW0 bits 4–3 offer 2–5 ($088E)
LIVES_MIN: Final = 2
LIVES_MAX: Final = 5

# --- Pengo's own timers ---------------------------------------------------------------------------
READY_WRAPS: Final = 2  # $3D90: Pengo may move after 2 wraps
PUSH_POSE_WRAPS: Final = 1  # $3FE9: the push pose waits until the next wrap
#: A pressed kick is held for one frame: the button is sampled only at centres ($3F85) and there is no
#: kick buffer, so a tap between centres is lost, as on the board.
KICK_PRESS_PASSES: Final = VBLANK_PASSES
#: Off-centre steering ($3EA6), in pixels past the last centre along the way Pengo moves: a held turn at
#: 1–3 steers him back to that centre (up or left), at 12–15 on to the next (down or right); elsewhere
#: it is ignored, so he cannot reverse in mid-cell.
STEER_BACK_PX: Final = (1, 3)
STEER_ON_PX: Final = 12
BREAK_POSE_T32: Final = 8  # $4053 / $409A: four rounds of (a frame, 2 t32)
SHAKE_STUN_AT_T32: Final = (2, 6)  # $40BC: the stun test runs after the first and third waits

# --- blocks ---------------------------------------------------------------------------------------
ICE_BREAK_T32: Final = 18  # $4972: 8 frames, one per 2 t32, end at step 9 (≈545–576 passes)
ICE_PASSABLE_T32: Final = 8  # frame $70 on: a sliding block counts the cell as free ($43A1)
HATCH_BREAK_T32: Final = 18  # egg hatching: 6 ice frames then $80 twice (≈576) …
HATCH_FLASH_T16: Final = 15  # … then a 15×t16 colour flash (≈240): tiles erased at ≈816
EGG_SHELL_T32: Final = 12  # egg broken by Pengo: 4 shell frames of 3×t32 …
EGG_SHELL_T64: Final = 8  # … then the $98 shell for 8×t64; +500 then ($4AFD)
BREAK_SLOTS: Final = 5  # $42C6: five breaking slots; with all busy nothing is allocated (a bug)

# --- Sno-Bee timers (in wraps or t64 ticks) -------------------------------------------------------
PAUSE_WRAPS: Final = 4  # $3385
PAUSE_SHORT_WRAPS: Final = 1  # +09 set: after a hatch or a junction turn
STUN_STILL_WRAPS: Final = 5  # $39C3
STUN_BLINK_WRAPS: Final = 8  # $3A0A
EATEN_WRAPS: Final = 8  # $3A77
SQUASHED_POSE_WRAPS: Final = 1  # $3B88
SQUASHED_SCORE_WRAPS: Final = 4  # $3BBF
HATCH_T64: Final = 24  # $3CEB: 6 stages of 4×t64
VANISH_T64: Final = 24  # $3D2C
VANISH_STAGE_T64: Final = 4  # $3CF6: each of the vanish's six stages ($34F7) re-arms +0A to 4 t64 ticks
#: $3A0F/$3A05: when the blink ends, +0A is left at 1 (decremented in A, not stored) and +09 at $0F
#: (nothing clears it until a pause ends, $339D): a stage or pause begun then re-arms nothing and runs
#: out on the next tick of its clock (slot_timers="arcade").
BLINK_LEFT_COUNT: Final = 1
HATCH_CHEWS: Final = 20  # $3CA8: chew count +1B at a hatch
DEAD_END_CHEWS: Final = 2  # $36D3
FLEE_AFTER_MINUTES: Final = 2  # $33E6
HURRY_AFTER_MINUTES: Final = 1  # $344B
#: The last Sno-Bee flees when the vblank counter's high byte ($8823) reaches 3 ($33ED).
LAST_FLEE_HIGH_BYTE: Final = 3
#: Vblanks per step of that high byte.
HIGH_BYTE_VBLANKS: Final = 256

# --- blocking sequences (vblanks; the round clock runs through them) ------------------------------
DEATH_VBLANKS: Final = 30 + 12 * 8  # $3FB3
READY_VBLANKS: Final = 128  # $08F0
LINE_VBLANKS: Final = 594  # $464A–$4740: flashes, pause, count-up, pauses
LINE_WALL_VBLANKS: Final = 494
CLEAR_VBLANKS: Final = 32 + 128  # $0C39 fade + $0A2B delay (the walk-out is added per position)
DRAW_VBLANKS_PER_HOLE: Final = 2  # $314E
DRAW_VBLANKS_EXTRA: Final = 32  # $2F19

# --- seconds timing: the port's lengths where the listing counts ticks (not in the listing) ---------
PLAYER_READY_SECONDS: Final = 0.3  # READY_WRAPS
SQUASHED_POSE_SECONDS: Final = 0.3  # SQUASHED_POSE_WRAPS
SQUASHED_SCORE_SECONDS: Final = 1.0  # SQUASHED_SCORE_WRAPS
EATEN_SECONDS: Final = 0.8  # EATEN_WRAPS
VANISH_SECONDS: Final = 1.9  # VANISH_T64
EGG_SHELL_SECONDS: Final = 1.0  # EGG_SHELL_T32 + EGG_SHELL_T64, after the break
#: A config without a flight still hurries once a minute of a 120-second flight ($33E6, $344B).
FLEE_ALL_SECONDS: Final = 120.0

#: Sno-Bee pixel clamp between centres ($3922–$3940): the outer cells' centres.
#: Cells are 16 px; pixel 0 is the centre of column 0 / row 0 in the core's coordinates.
CELL: Final = 16
