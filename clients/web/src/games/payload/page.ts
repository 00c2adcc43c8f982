/**
 * Payload (practice): a solo run played entirely in the browser engine (`#/payload`). The page owns no
 * rules: the run, its offers, quota and drops, the previews, each drop's event log and the share text
 * come from rules/payload in the engine's worker (./engine.ts); the page decides only how to show them.
 *
 * A drop is played back from its log (./playback.ts): each frame every marble in flight advances one
 * step; a part that fires flashes its cell and floats its label (triggers close together on one cell merge
 * into one rising number: playback.ts `floatLabels`); the breakdown lists each marble's path
 * in order. Skip collapses the timing: the remaining frames are applied at once, the numbers unchanged.
 *
 * The server's daily (`#/payload/daily`, `server`): the day's boards come from the server (`GET
 * /api/daily?ruleset=payload`: a config per difficulty from floe's HMAC day seed), the chosen one is played
 * here the same way, and the engine records it as the `payload` ruleset's one-seat match (each move its
 * input byte, frame by frame: payload_engine.py). At the end the replay file is submitted (`POST
 * /api/daily/runs`, as the guest); the page shows the verified score, the day's board of that difficulty,
 * the streak (counted for verified runs only) and the share text. The practice daily (`?daily`, the bare
 * date key, offline: scouting legal there) stays the practice page's option.
 */

import { encode } from "@msgpack/msgpack";
import { guest } from "../../app/api";
import { type BoardsDaily, type DailyEntry, type DailySubmitted, ranked } from "../../app/ranked";

import { browserEngine } from "../../engine/engine";
import { button, el } from "../../app/dom";
import { onLeave, show } from "../../app/page";
import { PayloadRun } from "./engine";
import { bestColumn, floatLabels, frames, stepText, type FloatLabel, type Frame } from "./playback";
import type { DropEvent, PartRow, PayloadContent, PayloadMove, PayloadView, RunEvent, Shared, Streak } from "./types";

/** How long one playback frame shows (ms). */
export const STEP_MS = 200;
/** Where the daily streaks are kept (per difficulty). */
const STREAK_KEY = "floe.payload.streak";

/** What the browser tests read (`window.__floePayload`). */
export interface PayloadHooks {
  view: PayloadView | null;
  /** A request to the engine or a drop's playback is under way. */
  busy: boolean;
  playing: boolean;
  /** Drops played back to the end, and the last one's frames and total. */
  drops: number;
  lastDrop: { column: number; total: number; frames: number; skipped: boolean } | null;
  /** The placement preview shown: the cell and each column's total. */
  preview: { cell: number; totals: number[] } | null;
  shared: Shared | null;
  parts: number;
  /** The server's daily: the day's boards, the run's replay as submitted (plain), the server's answer to it,
   * and the day's board of the run's difficulty as last shown. */
  daily: BoardsDaily | null;
  replay: unknown;
  submitted: DailySubmitted | null;
  board: DailyEntry[] | null;
}

declare global {
  interface Window {
    __floePayload?: PayloadHooks;
  }
}

function todayKey(): string {
  return new Date().toISOString().slice(0, 10);
}

function storedStreak(difficulty: string): Streak | null {
  try {
    const all = JSON.parse(localStorage.getItem(STREAK_KEY) ?? "{}") as Record<string, Streak>;
    return all[difficulty] ?? null;
  } catch {
    return null;
  }
}

function keepStreak(difficulty: string, streak: Streak): void {
  const all = JSON.parse(localStorage.getItem(STREAK_KEY) ?? "{}") as Record<string, Streak>;
  all[difficulty] = streak;
  localStorage.setItem(STREAK_KEY, JSON.stringify(all));
}

/** The page. `daily`: start on the practice daily (the date key's run); `server`: the server's daily. */
export function payloadPage(daily = false, server = false): void {
  const hooks: PayloadHooks = { view: null, busy: true, playing: false, drops: 0, lastDrop: null, preview: null,
    shared: null, parts: 0, daily: null, replay: null, submitted: null, board: null };
  window.__floePayload = hooks;
  const message = el("p", { id: "payload-message", class: "message", role: "status" }, "Loading the engine…");
  const difficulty = el("select", { id: "payload-difficulty" });
  const seed = el("input", { id: "payload-seed", type: "number", min: "0", max: "4294967295", value: "7" });
  const dailyBox = el("input", { id: "payload-daily", type: "checkbox", ...(daily ? { checked: "" } : {}) });
  const start = button(server ? "Play the day's run" : "Start the run", "payload-start", () => void begin());
  start.disabled = server; // the server's daily: once the day's boards are known
  const dayBoard = el("ol", { id: "payload-day-board" });
  const hud = el("div", { id: "payload-hud", class: "pl-hud" });
  const draft = el("div", { id: "payload-draft", class: "pl-draft" });
  const columns = el("div", { id: "payload-columns", class: "pl-columns" });
  const note = el("p", { id: "payload-preview-note", class: "help pl-note" });
  const grid = el("div", { id: "payload-board", class: "pl-board" });
  const breakdown = el("ol", { id: "payload-breakdown", class: "pl-breakdown" });
  const over = el("section", { id: "payload-over", class: "card hidden" });
  const compendium = el("details", { id: "payload-compendium" }, el("summary", {}, "Compendium"));
  const skip = button("Skip ▸▸", "payload-skip", () => skipNow?.());
  skip.disabled = true;
  const controls = server
    ? el("div", { class: "buttons" }, el("label", { for: "payload-difficulty" }, "Difficulty "), difficulty, " ", start)
    : el("div", { class: "buttons" }, el("label", { for: "payload-difficulty" }, "Difficulty "), difficulty, " ",
      el("label", { for: "payload-seed" }, "seed "), seed, " ", el("label", {}, dailyBox, " the day's run"), " ", start);
  show(
    el("h1", {}, server ? "Payload daily" : "Payload (practice)"),
    el("p", { class: "lead" }, server
      ? "Today's run for everyone, one per difficulty, dealt by the server: played in your browser by floe's own "
        + "rules, then sent to the server, which replays your moves and puts the verified score on the day's board."
      : "Draft parts onto the machine, drop marbles down its columns; each round's total must "
        + "reach its quota. Played in your browser by floe's own rules."),
    el("nav", {}, el("a", { href: "#/" }, "Back to the lobby"), " · ",
      server ? el("a", { href: "#/payload" }, "Practice") : el("a", { href: "#/payload/daily" }, "The server's daily")),
    controls,
    message, over, hud,
    el("div", { class: "pl-stage" },
      el("div", { class: "pl-machine" }, note, columns, grid, el("div", { class: "pl-skip" }, skip)),
      el("div", { class: "pl-side" }, draft, el("h2", {}, "Last drop"), breakdown)),
    ...(server ? [el("h2", {}, "Today's board"), dayBoard] : []),
    compendium,
  );

  const engine = browserEngine();
  if (engine === null) {
    message.textContent = "This browser cannot run the engine (no WebAssembly or workers).";
    return;
  }
  const run = new PayloadRun(engine);
  let content: PayloadContent | null = null;
  let parts = new Map<string, PartRow>();
  let view: PayloadView | null = null;
  let skipNow: (() => void) | null = null;
  let left = false;
  onLeave(() => {
    left = true;
    skipNow?.();
    window.__floePayload = undefined;
  });
  const cells: HTMLButtonElement[] = [];

  const partOf = (key: string | null): PartRow | undefined => (key === null ? undefined : parts.get(key));
  const nameOf = (key: string): string => parts.get(key)?.name ?? key;
  const blueprintName = (key: string): string => content?.blueprints.find((b) => b.key === key)?.name ?? key;

  let pending = 0;
  const busy = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
    pending += 1;
    hooks.busy = true;
    try {
      return await work();
    } catch (error) {
      message.textContent = String(error instanceof Error ? error.message : error);
      return undefined;
    } finally {
      pending -= 1;
      hooks.busy = pending > 0;
    }
  };

  // ---- drawing the run --------------------------------------------------------------------------

  function drawHud(v: PayloadView): void {
    const phase = v.phase;
    const dropsLeft = phase.phase === "dropping" ? phase.drops_left : phase.phase === "over" ? 0 : v.drops;
    hud.replaceChildren(
      el("span", { id: "payload-round" }, `Round ${Math.min(v.round + 1, v.rounds)}/${v.rounds}`), " · ",
      el("span", { id: "payload-quota" }, `${v.round_score} / ${v.quota}`), " this round · ",
      el("span", { id: "payload-drops" }, `${dropsLeft} drop${dropsLeft === 1 ? "" : "s"} left`), " · total ",
      el("strong", { id: "payload-total" }, String(v.total_score)),
      el("div", { class: "help" },
        `${v.daily ? `daily ${v.daily} · ` : ""}${v.difficulty} · ${v.variant} · seed ${v.seed}`,
        v.jams.length ? ` · jam: ${v.jams.map((j) => `${j.name} (${j.rule})`).join("; ")}` : "",
        v.blueprints.length ? ` · blueprints: ${v.blueprints.map(blueprintName).join(", ")}` : ""),
    );
  }

  function drawBoard(v: PayloadView): void {
    v.board.forEach((key, index) => {
      const cell = cells[index]!;
      const part = partOf(key);
      cell.replaceChildren(el("span", { class: "pl-glyph" }, part?.glyph ?? ""),
        el("span", { class: "pl-badge" }, part?.badge ?? ""));
      cell.title = part ? `${part.name}: ${part.rule}` : `empty cell ${index}`;
      cell.classList.toggle("filled", key !== null);
      cell.classList.remove("ghost");
      delete cell.dataset.ghost;
      cell.dataset.part = key ?? "";
    });
  }

  function drawColumns(v: PayloadView, preview: number[] | null, label: string): void {
    const totals = preview ?? v.columns;
    const dropping = v.phase.phase === "dropping";
    const best = totals ? bestColumn(totals) : -1;
    columns.replaceChildren(...Array.from({ length: content!.cols }, (_, column) => {
      const node = button(totals ? `▼ ${totals[column]}` : "▼", `drop-${column}`, () => void play({ kind: "drop", column }));
      node.disabled = !dropping || hooks.playing;
      node.classList.toggle("best", column === best);
      node.title = totals ? `${label}: column ${column + 1} pays ${totals[column]}` : `column ${column + 1}`;
      return node;
    }));
    columns.dataset.preview = label;
    note.textContent = totals === null ? "" : preview === null ? "What a marble pays down each column now:"
      : `What each column would pay ${label}:`;
  }

  function drawDraft(v: PayloadView): void {
    const phase = v.phase;
    if (phase.phase === "draft") {
      const offers = phase.offers.map((key, index) => {
        const part = partOf(key)!;
        const node = button("", `offer-${index}`, () => void play({ kind: "select", index }));
        node.className = `pl-offer${phase.selected === index ? " selected" : ""}`;
        node.append(el("span", { class: "pl-glyph" }, part.glyph), el("strong", {}, ` ${part.name} `),
          el("span", { class: "pl-badge" }, part.badge), el("div", { class: "pl-rule" }, part.rule));
        return node;
      });
      const extra = [button("Skip the draft", "payload-skip-draft", () => void play({ kind: "skip" }))];
      if (v.can_reroll) extra.push(button("Shake (Loose Screws)", "payload-reroll", () => void play({ kind: "reroll" })));
      draft.replaceChildren(el("h2", {}, phase.selected === null ? "Draft: pick a part" : "Place it on a cell"),
        el("div", { class: "pl-offers" }, ...offers), el("div", { class: "buttons" }, ...extra));
    } else if (phase.phase === "blueprints") {
      const specs = new Map(content!.blueprints.map((b) => [b.key, b]));
      draft.replaceChildren(el("h2", {}, "A blueprint"), el("div", { class: "pl-offers" },
        ...phase.choices.map((key, index) => {
          const spec = specs.get(key)!;
          const node = button("", `blueprint-${index}`, () => void play({ kind: "blueprint", index }));
          node.className = "pl-offer";
          node.dataset.blueprint = key;
          node.append(el("strong", {}, spec.name), el("div", { class: "pl-rule" }, spec.rule));
          return node;
        })), el("div", { class: "buttons" }, button("Decline", "payload-decline", () => void play({ kind: "skip" }))));
    } else if (phase.phase === "dropping") {
      draft.replaceChildren(el("h2", {}, "Drop: pick a column"),
        el("p", { class: "help" }, "Each column's button shows what a marble dropped there pays now."));
    } else {
      draft.replaceChildren();
    }
  }

  function draw(v: PayloadView): void {
    view = v;
    hooks.view = v;
    hooks.preview = null;
    drawHud(v);
    drawBoard(v);
    drawDraft(v);
    drawColumns(v, null, "now");
    const placing = v.phase.phase === "draft" && v.phase.selected !== null;
    grid.classList.toggle("placing", placing);
    for (const cell of cells) cell.disabled = !placing || hooks.playing;
  }

  // ---- the placement preview ----------------------------------------------------------------------

  let previewAsked = 0;
  async function previewAt(cell: number): Promise<void> {
    const v = view;
    if (v === null || v.phase.phase !== "draft" || v.phase.selected === null) return;
    const asked = ++previewAsked;
    const totals = await busy(() => run.placement(cell));
    if (totals === undefined || asked !== previewAsked || view !== v) return;
    const part = partOf(v.phase.offers[v.phase.selected]!)!;
    drawColumns(v, totals, `with ${part.name} on this cell`);
    for (const node of cells) {
      const here = node.dataset.cell === String(cell);
      node.classList.toggle("ghost", here);
      if (here) node.dataset.ghost = part.glyph;
      else delete node.dataset.ghost;
    }
    hooks.preview = { cell, totals };
  }

  // ---- moves and the drop's playback ----------------------------------------------------------------

  async function play(move: PayloadMove): Promise<void> {
    if (hooks.playing || view === null) return;
    const answer = await busy(() => run.move(move));
    if (answer === undefined) return;
    message.textContent = "";
    const drop = answer.events.find((event): event is Extract<RunEvent, { kind: "drop" }> => event.kind === "drop"
      && Array.isArray((event as { log?: unknown }).log));
    if (drop !== undefined) await playBack(drop.column, drop.total, drop.log);
    for (const event of answer.events) {
      if (event.kind === "round-cleared") message.textContent = `Round ${Number(event.round) + 1} cleared: ${event.score} of ${event.quota}.`;
      if (event.kind === "round-missed") message.textContent = `Round ${Number(event.round) + 1} missed: ${event.score} of ${event.quota}.`;
    }
    if (left) return;
    draw(answer.view);
    if (answer.view.phase.phase === "over") await finish(answer.view);
  }

  /** The label each cell floats now (a merged trigger updates it in place: playback.ts `floatLabels`). */
  const floating = new Map<number, HTMLElement>();

  function flash(label: FloatLabel): void {
    const node = cells[label.cell];
    if (node === undefined) return;
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation
    node.classList.add("flash");
    let float = label.merged ? floating.get(label.cell) : undefined;
    if (float === undefined || !float.isConnected) {
      float = el("span", {});
      const mine = float;
      float.addEventListener("animationend", () => {
        mine.remove();
        if (floating.get(label.cell) === mine) floating.delete(label.cell);
      });
      node.append(float);
      floating.set(label.cell, float);
    }
    float.className = "";
    void float.offsetWidth; // a merged number rises again from the cell
    float.className = `pl-float ${label.kind}`;
    float.textContent = label.text;
    float.dataset.triggers = String(label.triggers);
  }

  function placeMarble(dots: Map<number, HTMLElement>, marble: number, cell: number, value: number): void {
    let dot = dots.get(marble);
    if (dot === undefined) {
      dot = el("span", { class: "pl-marble" });
      dots.set(marble, dot);
      grid.append(dot);
    }
    const cols = content!.cols;
    dot.style.setProperty("--col", String(cell % cols));
    dot.style.setProperty("--row", String(Math.floor(cell / cols)));
    dot.textContent = String(value);
  }

  /** The breakdown's line of each marble, written as its path is played. */
  function line(lines: Map<number, HTMLElement>, event: DropEvent): void {
    let node = lines.get(event.marble);
    if (node === undefined) {
      node = el("li", { "data-marble": String(event.marble) }, `#${event.marble}: ${stepText(event, nameOf)}`);
      lines.set(event.marble, node);
      breakdown.append(node);
      return;
    }
    node.append(event.kind === "bank" ? ` ⇒ ${stepText(event, nameOf)}` : ` → ${stepText(event, nameOf)}`);
  }

  function applyFrame(frame: Frame, dots: Map<number, HTMLElement>, lines: Map<number, HTMLElement>,
    running: { total: number }): void {
    for (const event of frame) {
      line(lines, event);
      switch (event.kind) {
        case "enter":
        case "spawn":
          placeMarble(dots, event.marble, event.cell, event.value);
          break;
        case "trigger":
          placeMarble(dots, event.marble, event.cell, event.after);
          break;
        case "capped":
          break;
        case "bank":
          running.total += event.value;
          dots.get(event.marble)?.remove();
          dots.delete(event.marble);
          break;
      }
    }
  }

  async function playBack(column: number, total: number, log: DropEvent[]): Promise<void> {
    const grouped = frames(log);
    hooks.playing = true;
    skip.disabled = false;
    for (const node of columns.querySelectorAll("button")) node.disabled = true;
    breakdown.replaceChildren();
    const lines = new Map<number, HTMLElement>();
    const dots = new Map<number, HTMLElement>();
    const running = { total: 0 };
    let skipped = false;
    let wake: (() => void) | null = null;
    skipNow = () => {
      skipped = true;
      wake?.();
    };
    const labels = floatLabels(grouped);
    for (const [index, frame] of grouped.entries()) {
      applyFrame(frame, dots, lines, running);
      if (!skipped) for (const label of labels[index]!) flash(label);
      message.textContent = `Dropping down column ${column + 1}: ${running.total}`;
      if (!skipped) await new Promise<void>((resolve) => {
        wake = resolve;
        window.setTimeout(resolve, STEP_MS);
      });
    }
    for (const dot of dots.values()) dot.remove();
    breakdown.append(el("li", { id: "payload-drop-total" }, `column ${column + 1} paid ${total}`));
    skipNow = null;
    skip.disabled = true;
    message.textContent = `Column ${column + 1} paid ${running.total}.`;
    hooks.playing = false;
    hooks.drops += 1;
    hooks.lastDrop = { column, total: running.total, frames: grouped.length, skipped };
  }

  async function finish(v: PayloadView): Promise<void> {
    const verdict = v.server ? await submit(v) : null;
    if (v.server && verdict === null) return;
    // the server's daily keeps its streak apart from the practice daily's, and counts verified runs only
    const streakKey = v.server ? `server-${v.difficulty}` : v.difficulty;
    const streak = v.daily ? storedStreak(streakKey) : null;
    const shared = await busy(() => run.share(todayKey(), streak, verdict === null || verdict.ok));
    if (shared === undefined) return;
    if (v.daily) keepStreak(streakKey, shared.streak);
    hooks.shared = shared;
    const text = el("pre", { id: "payload-share" }, shared.text);
    const verified = verdict === null ? [] : [el("p", { id: "payload-verified", class: verdict.ok ? "ok" : "message" },
      verdict.ok ? `Verified by the server: ${verdict.score} points (your best today on this board: `
        + `${verdict.best?.score ?? verdict.score}).` : `The server refused the run: ${verdict.message ?? "not verified"}`)];
    const streakLine = v.daily ? [el("p", { id: "payload-streak" },
      `Streak (${v.difficulty}): ${shared.streak.current} day${shared.streak.current === 1 ? "" : "s"}, best ${shared.streak.best}`)] : [];
    over.replaceChildren(
      el("h2", {}, v.phase.phase === "over" && v.phase.won ? "Every quota met: the run is won" : "The run is over"),
      el("p", {}, `Total ${v.total_score} · ${v.rounds_cleared} of ${v.rounds} rounds cleared · ${shared.moves.length} moves`),
      ...verified, ...streakLine,
      text,
      el("div", { class: "buttons" },
        button("Copy the share text", "payload-copy", () => void navigator.clipboard?.writeText(shared.text)),
        button("Another run", "payload-again", () => void begin())),
    );
    over.classList.remove("hidden");
  }

  // ---- the server's daily ------------------------------------------------------------------------------

  /** The run's replay file from the engine, submitted as the guest: the server's answer (null: not sent). */
  async function submit(v: PayloadView): Promise<DailySubmitted | null> {
    const day = hooks.daily;
    if (day === null) return null;
    message.textContent = "Run over: sending it to the server to verify…";
    const answer = await busy(async () => {
      const replay = await run.replay();
      hooks.replay = replay;
      const me = await guest();
      return ranked.submitDaily(me.token, new Blob([encode(replay)], { type: "application/msgpack" }));
    });
    if (answer === undefined) return null;
    hooks.submitted = answer;
    message.textContent = answer.ok ? `Verified: ${answer.score} points.` : `Refused: ${answer.message ?? "not verified"}`;
    await showBoard(v.difficulty);
    return answer;
  }

  /** The day's board of a difficulty, best first. */
  async function showBoard(board: string): Promise<void> {
    const day = hooks.daily;
    if (day === null) return;
    const shown = await busy(() => ranked.rulesetBoard(day.day, day.ruleset, board, 10));
    if (shown === undefined) return;
    hooks.board = shown.entries;
    dayBoard.dataset.board = board;
    dayBoard.replaceChildren(...(shown.entries.length ? shown.entries.map((entry) =>
      el("li", {}, `${entry.name} ${entry.score}`, ...(entry.replay === null ? []
        : [" ", el("a", { href: `#/replay/${entry.replay}` }, "replay")])))
      : [el("li", {}, `no ${board} runs yet`)]));
  }

  // ---- the compendium (from the tables the rules hold) ---------------------------------------------

  function drawCompendium(c: PayloadContent): void {
    const table = (id: string, head: string[], rows: string[][]): HTMLElement =>
      el("table", { id, class: "rules" }, el("tr", {}, ...head.map((h) => el("th", {}, h))),
        ...rows.map((row) => el("tr", {}, ...row.map((cell) => el("td", {}, cell)))));
    compendium.append(
      el("h3", {}, "Parts"),
      table("payload-parts", ["", "Part", "Badge", "Role", "Rule"], c.parts.map((p) => [p.glyph, p.name, p.badge, p.role, p.rule])),
      el("h3", {}, "Blueprints"),
      table("payload-blueprints", ["Blueprint", "Rule"], c.blueprints.map((b) => [b.name, b.rule])),
      el("h3", {}, "Jams"),
      table("payload-jams", ["Jam", "Rule"], c.jams.map((j) => [j.name, j.rule])),
      el("h3", {}, "Variants (the daily's)"),
      table("payload-variants", ["Variant", "Rule"], c.variants.map((v) => [v.name, v.rule])),
      el("h3", {}, "Difficulties"),
      table("payload-difficulties", ["Difficulty", "Rounds (quota, drops, jam)"], c.difficulties.map((d) =>
        [d.name, d.rounds.map((r) => `${r.quota}/${r.drops}${r.jam ? ` ${r.jam}` : ""}`).join(" · ")])),
    );
  }

  // ---- starting -------------------------------------------------------------------------------------

  async function begin(): Promise<void> {
    if (hooks.playing || content === null) return;
    over.classList.add("hidden");
    hooks.shared = null;
    breakdown.replaceChildren();
    hooks.replay = null;
    hooks.submitted = null;
    const day = hooks.daily;
    const started = await busy(async () => {
      if (server) {
        const config = day?.boards[difficulty.value];
        if (day === null || config === undefined) throw new Error(`no ${difficulty.value} board in today's daily`);
        const me = await guest();
        return run.start({ difficulty: difficulty.value, server: { day: day.day, ruleset: day.ruleset,
          ruleset_version: day.ruleset_version, config, seed: day.seed, player: me.guest, name: me.name } });
      }
      return run.start(dailyBox.checked ? { difficulty: difficulty.value, daily: todayKey() }
        : { difficulty: difficulty.value, seed: Math.max(0, Math.min(0xffffffff, Math.floor(Number(seed.value) || 0))) });
    });
    if (started === undefined) return;
    message.textContent = "";
    draw(started);
  }

  void busy(async () => {
    await engine.ready;
    content = await run.content();
    parts = new Map(content.parts.map((p) => [p.key, p]));
    hooks.parts = content.parts.length;
    difficulty.replaceChildren(...content.difficulties.map((d) => el("option", { value: d.key }, d.name)));
    grid.style.setProperty("--cols", String(content.cols));
    for (let index = 0; index < content.cols * content.rows; index += 1) {
      const cell = el("button", { type: "button", class: "pl-cell", "data-cell": String(index), id: `cell-${index}` });
      cell.disabled = true;
      cell.addEventListener("mouseenter", () => void previewAt(index));
      cell.addEventListener("focus", () => void previewAt(index));
      cell.addEventListener("click", () => void play({ kind: "place", cell: index }));
      cells.push(cell);
      grid.append(cell);
    }
    drawCompendium(content);
    if (!server) {
      message.textContent = "Pick a difficulty and a seed, then start.";
      return;
    }
    const day = await ranked.boardsDaily("payload");
    hooks.daily = day;
    const names = new Map(content.difficulties.map((d) => [d.key, d.name]));
    difficulty.replaceChildren(...Object.keys(day.boards).map((key) => el("option", { value: key }, names.get(key) ?? key)));
    difficulty.addEventListener("change", () => void showBoard(difficulty.value));
    await showBoard(difficulty.value);
    start.disabled = false;
    message.textContent = `Today (${day.day}): one run per difficulty for everyone (up to ${day.submissions} submissions `
      + "a day). Pick a difficulty, then play.";
  });
}
