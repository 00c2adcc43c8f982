"""Text rendering of a KickGame: the board with its actors, two characters per cell, and a status line.

Every cell is two characters wide so the board looks square in a terminal. Glyphs (ASCII / Unicode):

- floor `. ` / `· `, goal `()` / `◎ `, ice `##` / `▒▒` (an egg block while eggs flash: `@@`),
  thick ice `%%`, diamond `DD` / `◆◆`, steel `XX` / `██`, crate `[]`, gem `GG` / `◇◇`,
  a shattering block `::`, any other material its initial twice;
- the player `P` and an arrow for its facing (`P<` / `P←`), `P*` while dying;
- an enemy its kind's initial (`b` Sno-Bee, `w` walrus, `s` seal) and an arrow; uppercase while
  stunned (`B!`, `B~` blinking); `b*` hatching, `b_` squashed or carried, `b$` eaten, `b'` vanishing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.kick.game import KickGame, KickState


@dataclass(frozen=True)
class Glyphs:
    """One glyph set (each entry is exactly two characters unless noted)."""

    floor: str
    goal: str
    materials: dict[str, str]
    egg_flash: str
    shattering: str
    arrows: dict[str, str]  # one character per direction
    frame_corner: str
    frame_h: str
    frame_v: str


ASCII = Glyphs(
    floor=". ",
    goal="()",
    materials={"ice": "##", "thick-ice": "%%", "diamond": "DD", "steel": "XX", "crate": "[]", "gem": "GG"},
    egg_flash="@@",
    shattering="::",
    arrows={"up": "^", "down": "v", "left": "<", "right": ">"},
    frame_corner="+",
    frame_h="-",
    frame_v="|",
)

UNICODE = Glyphs(
    floor="· ",
    goal="◎ ",
    materials={"ice": "▒▒", "thick-ice": "▓▓", "diamond": "◆◆", "steel": "██", "crate": "[]", "gem": "◇◇"},
    egg_flash="@@",
    shattering="::",
    arrows={"up": "↑", "down": "↓", "left": "←", "right": "→"},
    frame_corner="+",
    frame_h="-",
    frame_v="|",
)

#: The letter of each enemy kind (other kinds use their initial).
KIND_LETTER = {"sno-bee": "b", "walrus": "w", "seal": "s"}

#: Second character of an enemy by phase (moving and pausing enemies show their facing instead).
PHASE_MARK = {"hatching": "*", "squashed": "_", "carried": "_", "eaten": "$", "vanishing": "'"}


def _cell(x: float, y: float) -> tuple[int, int]:
    """The cell nearest a continuous position (halves round toward +∞, unlike round())."""
    return int(x + 0.5), int(y + 0.5)


def enemy_glyph(kind: str, phase: str, facing: str, blinking: bool, glyphs: Glyphs) -> str:
    """The two characters of an enemy."""
    letter = KIND_LETTER.get(kind) or kind[:1] or "e"
    if phase == "stunned":
        return letter.upper() + ("~" if blinking else "!")
    return letter + PHASE_MARK.get(phase, glyphs.arrows.get(facing, " "))


def render_state(state: KickState, glyphs: Glyphs = ASCII, frame: bool = True) -> list[str]:
    """The board of a KickState as text rows, with the goals, blocks, enemies and player drawn."""
    cols, rows = state.cols, state.rows
    grid = [[glyphs.floor] * cols for _ in range(rows)]

    def put(x: int, y: int, text: str) -> None:
        if 0 <= x < cols and 0 <= y < rows:
            grid[y][x] = text

    for goal in state.goals:
        put(goal["x"], goal["y"], glyphs.goal)
    for block in state.blocks:
        if block.breaking is not None:
            text = glyphs.shattering
        elif block.egg is not None and state.egg_flash:
            text = glyphs.egg_flash
        else:
            text = glyphs.materials.get(block.material, block.material[:1].upper() * 2)
        put(*_cell(block.x, block.y), text)
    for enemy in state.enemies:
        put(*_cell(enemy.x, enemy.y), enemy_glyph(enemy.kind, enemy.phase, enemy.dir, enemy.blinking, glyphs))
    player = state.player
    mark = "*" if player.action == "dying" else glyphs.arrows[player.facing]
    put(*_cell(player.x, player.y), "P" + mark)
    lines = ["".join(row) for row in grid]
    if not frame:
        return lines
    edge = glyphs.frame_corner + glyphs.frame_h * (2 * cols) + glyphs.frame_corner
    return [edge, *(glyphs.frame_v + line + glyphs.frame_v for line in lines), edge]


def render(game: KickGame, glyphs: Glyphs = ASCII, frame: bool = True) -> list[str]:
    """The game's board as text rows with every actor drawn (see render_state)."""
    return render_state(game.state, glyphs, frame)


def status_line(state: KickState) -> str:
    """One line: status, act, score, lives, round time and enemies remaining."""
    seconds = state.round_time
    minutes, rest = divmod(seconds, 60.0)
    text = (f"{state.status.upper():8} act {state.act:<2} level {state.level:<3} score {state.score:<7} "
            f"lives {state.lives}  time {int(minutes)}:{rest:04.1f}  remaining {state.remaining}")
    if state.hurry:
        text += "  HURRY"
    return text


def screen(game: KickGame, glyphs: Glyphs = ASCII) -> list[str]:
    """The status line above the framed board."""
    state = game.state
    return [status_line(state), *render_state(state, glyphs)]
