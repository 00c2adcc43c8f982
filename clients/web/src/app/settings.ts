/**
 * The player's settings, kept in the browser (local storage): each one a typed key with its default
 * and its validation. A stored value that is missing or not valid (an older format, a hand edit) reads
 * as the default; a value set that is not valid is refused with a `SettingError` and stores nothing.
 *
 * `sound` is stored as "on"/"off" since the lobby's box first kept it; issue 19 adds the board's look
 * (`palette`, `reducedMotion`, `wallShake`, `flashes`) and its other rows to `SETTINGS`.
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

/** The board palettes (`palette`). */
export const PALETTES = ["standard", "deuteranopia", "protanopia", "tritanopia", "high-contrast"] as const;
export type PaletteName = (typeof PALETTES)[number];

/** The browser's settings. */
export const SETTINGS = {
  /** Sound effects (off by default: a page should not start making noise). */
  sound: onOff("floe.sound", false),
  // ---- issue 19: the board's look (games/pengo/look.ts reads them; the settings screen sets them) ----
  /** The board's colours: the standard one, or one for a colour vision deficiency, or high contrast
   * (every palette but the standard one also marks each block kind with its own glyph). */
  palette: oneOf("floe.palette", PALETTES, "standard"),
  /** Reduced motion: "system" follows the browser's `prefers-reduced-motion`; "on" and "off" override it.
   * Reduced, the board neither shakes nor flashes whatever the two toggles below say. */
  reducedMotion: oneOf("floe.reducedMotion", ["system", "on", "off"] as const, "system"),
  /** The board shakes while Pengo kicks the wall. */
  wallShake: onOff("floe.wallShake", true),
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
    if (setting.parse(text) !== value) throw new SettingError(name, value);
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
