/**
 * The player's settings, kept in the browser (local storage): each one a typed key with its default
 * and its validation. A stored value that is missing or not valid (an older format, a hand edit) reads
 * as the default; a value set that is not valid is refused with a `SettingError` and stores nothing.
 *
 * `sound` is stored as "on"/"off" since the lobby's box first kept it; the settings screen
 * (app/settings-screen.ts, `#/settings`) edits every row of `SETTINGS`; the board's look (`palette`,
 * `reducedMotion`, `wallShake`, `flashes`) is read by games/pengo/look.ts.
 */

/** One setting: where it is stored, its default, and how its value is written and read back. */
export interface Setting<T> {
  /** The local storage key. */
  readonly key: string;
  readonly fallback: T;
  /** The stored text's value, or undefined when the text is not a valid value. */
  parse(raw: string): T | undefined;
  format(value: T): string;
}

/** The value type of a setting. */
export type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** A bad value for a setting. */
export class SettingError extends Error {
  constructor(readonly setting: string, value: unknown) {
    super(`${JSON.stringify(value)} is not a valid value for the setting ${setting}`);
  }
}

/** A yes-or-no setting stored as `on` / `off`. */
export function onOff(key: string, fallback: boolean): Setting<boolean> {
  return {
    key,
    fallback,
    parse: (raw) => (raw === "on" ? true : raw === "off" ? false : undefined),
    format: (on) => (on ? "on" : "off"),
  };
}

/** One of a fixed list of words. */
export function oneOf<const W extends string>(key: string, words: readonly W[], fallback: W): Setting<W> {
  return {
    key,
    fallback,
    parse: (raw) => (words as readonly string[]).includes(raw) ? (raw as W) : undefined,
    format: (word) => word,
  };
}

/** A number from `min` to `max`. */
export function numberIn(key: string, min: number, max: number, fallback: number): Setting<number> {
  return {
    key,
    fallback,
    parse: (raw) => {
      const value = raw.trim() === "" ? Number.NaN : Number(raw);
      return Number.isFinite(value) && value >= min && value <= max ? value : undefined;
    },
    format: (value) => String(value),
  };
}

// ---- key bindings -------------------------------------------------------------------------------------

/** What a key can do in a match: a direction held, or the kick. */
export const ACTIONS = ["up", "down", "left", "right", "kick"] as const;
export type Action = (typeof ACTIONS)[number];
/** Each action's physical keys (`KeyboardEvent.code`: the key's place on the keyboard, whatever letter
 * the layout prints on it, so WASD is ZQSD's place on an AZERTY keyboard). */
export type Bindings = Readonly<Record<Action, readonly string[]>>;

export const DEFAULT_BINDINGS: Bindings = {
  up: ["ArrowUp", "KeyW"], down: ["ArrowDown", "KeyS"], left: ["ArrowLeft", "KeyA"], right: ["ArrowRight", "KeyD"],
  kick: ["Space"],
};

/** A key code as `KeyboardEvent.code` names one (letters, digits and words: `KeyQ`, `Digit1`, `ArrowUp`). */
const KEY_CODE = /^[A-Za-z][A-Za-z0-9]{0,31}$/;
/** Keys an action may have at most. */
const MAX_KEYS_PER_ACTION = 4;

/** The action bound to a physical key, if any. */
export function actionOf(bindings: Bindings, code: string): Action | undefined {
  return ACTIONS.find((action) => bindings[action].includes(code));
}

/** The bindings with `action` on `code` alone (the key taken from any other action that had it). */
export function rebind(bindings: Bindings, action: Action, code: string): Bindings {
  const next = {} as Record<Action, readonly string[]>;
  for (const each of ACTIONS) next[each] = each === action ? [code] : bindings[each].filter((held) => held !== code);
  return next;
}

/** A key code as a player reads it: `KeyQ` → "Q", `Digit1` → "1", `ArrowUp` → "↑" (the key's place
 * as a US keyboard prints it: the code names a place, not a letter). */
export function keyLabel(code: string): string {
  const arrows: Record<string, string> = { ArrowUp: "↑", ArrowDown: "↓", ArrowLeft: "←", ArrowRight: "→" };
  if (arrows[code] !== undefined) return arrows[code]!;
  const letter = /^Key([A-Z])$/.exec(code);
  if (letter) return letter[1]!;
  const digit = /^(?:Digit|Numpad)(\d)$/.exec(code);
  if (digit) return code.startsWith("Numpad") ? `keypad ${digit[1]}` : digit[1]!;
  return code;
}

/** Keys a binding never takes: they move the focus and leave a dialog, which a keyboard-only player needs. */
export const UNBINDABLE = ["Tab", "Escape"];

/** Key bindings stored as JSON: every action present with 0 to 4 key codes, no other field. */
export function keyBindings(key: string, fallback: Bindings): Setting<Bindings> {
  return {
    key,
    fallback,
    parse: (raw) => {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        return undefined;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
      const record = value as Record<string, unknown>;
      if (Object.keys(record).length !== ACTIONS.length) return undefined;
      const parsed = {} as Record<Action, readonly string[]>;
      for (const action of ACTIONS) {
        const codes = record[action];
        if (!Array.isArray(codes) || codes.length > MAX_KEYS_PER_ACTION) return undefined;
        if (!codes.every((code) => typeof code === "string" && KEY_CODE.test(code))) return undefined;
        parsed[action] = codes as string[];
      }
      return parsed;
    },
    format: (bindings) => JSON.stringify(Object.fromEntries(ACTIONS.map((action) => [action, bindings[action]]))),
  };
}

// ---- the settings ----------------------------------------------------------------------------------------

/** The colour palettes of the boards (the renderer draws a shape or glyph per block kind in each). */
export const PALETTES = ["standard", "deuteranopia", "protanopia", "tritanopia", "high-contrast"] as const;
export type PaletteName = (typeof PALETTES)[number];

/** The browser's settings. */
export const SETTINGS = {
  /** Sound effects (off by default: a page should not start making noise). */
  sound: onOff("floe.sound", false),
  /** Their loudness, 0 (silent) to 100. */
  volume: numberIn("floe.volume", 0, 100, 60),
  /** The keys of each action in a match. */
  bindings: keyBindings("floe.bindings", DEFAULT_BINDINGS),
  /** Hide every rating while a match is played (the lobby still shows them). */
  hideRatings: onOff("floe.hide-ratings", false),
  /** Predict your own board in the browser engine (src/engine: the server's rules in WebAssembly), so
   * it answers your keys at once; off, or without WebAssembly, the board is drawn from the stream alone. */
  prediction: onOff("floe.prediction", true),
  // ---- the board's look (games/pengo/look.ts reads them) ----
  /** The board's colours: the standard one, or one for a colour vision deficiency, or high contrast
   * (every palette but the standard one also marks each block kind with its own glyph). */
  palette: oneOf("floe.palette", PALETTES, "standard"),
  /** Reduced motion: "system" follows the browser's `prefers-reduced-motion`; "on" and "off" override it.
   * Reduced, the board neither shakes nor flashes whatever the two toggles below say. */
  reducedMotion: oneOf("floe.reduced-motion", ["system", "on", "off"] as const, "system"),
  /** The board shakes while Pengo kicks the wall. */
  wallShake: onOff("floe.wall-shake", true),
  /** Flashes and blinks (landings, eggs, the bonus, READY!, a fuse about to land). */
  flashes: onOff("floe.flashes", true),
} as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a setting of any value type
export type SettingDefinitions = Record<string, Setting<any>>;

/** What a store needs of local storage (a test passes a Map-backed one). */
export type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** Settings read from and written to a storage (read each time: another tab's change shows at once). */
export class SettingsStore<D extends SettingDefinitions> {
  constructor(readonly definitions: D, private readonly storage: KeyValueStorage) {}

  get<K extends keyof D & string>(name: K): ValueOf<D[K]> {
    const setting = this.definitions[name]! as Setting<ValueOf<D[K]>>;
    let raw: string | null = null;
    try {
      raw = this.storage.getItem(setting.key);
    } catch {
      // storage refused (a privacy mode): the default
    }
    if (raw === null) return setting.fallback;
    return setting.parse(raw) ?? setting.fallback;
  }

  /** Keep a value (a `SettingError` when it is not one the setting takes). */
  set<K extends keyof D & string>(name: K, value: ValueOf<D[K]>): void {
    const setting = this.definitions[name]! as Setting<ValueOf<D[K]>>;
    let text: string;
    try {
      text = setting.format(value);
    } catch {
      throw new SettingError(name, value);
    }
    const back = setting.parse(text);
    // A value read back as itself (a list or a map: as the same text) is one the setting takes.
    if (back === undefined || (back !== value && setting.format(back) !== text)) throw new SettingError(name, value);
    this.storage.setItem(setting.key, text);
  }

  /** Back to the default. */
  reset<K extends keyof D & string>(name: K): void {
    this.storage.removeItem(this.definitions[name]!.key);
  }

  /** Every setting's value. */
  load(): { [K in keyof D]: ValueOf<D[K]> } {
    const values: Partial<Record<keyof D, unknown>> = {};
    for (const name of Object.keys(this.definitions)) values[name as keyof D] = this.get(name as keyof D & string);
    return values as { [K in keyof D]: ValueOf<D[K]> };
  }
}

/** The page's settings, in its local storage. */
export function browserSettings(): SettingsStore<typeof SETTINGS> {
  return new SettingsStore(SETTINGS, localStorage);
}
