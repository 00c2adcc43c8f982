/**
 * Pengo's sounds: short tones made with the Web Audio API (no recorded sounds) for the events a player
 * hears — a kick, a crush, a shattered block, a death, a landing on one's board. The page plays them
 * only when the `sound` setting is on (app/settings.ts; the lobby's "Sound" box), at its `volume`.
 */

import { browserSettings } from "../../app/settings";
import type { GameEvent } from "../../net/vocabulary";

/** Each event's tone: frequency (Hz), length (s). */
const TONES: Record<string, [number, number]> = {
  kick: [330, 0.05], crush: [660, 0.15], broken: [520, 0.06], death: [110, 0.4], landing: [220, 0.2],
  "round-clear": [880, 0.3],
};

let context: AudioContext | null = null;

/** Play the tones of a frame's events on `seat`'s board. */
export function play(events: GameEvent[], seat: number | null): void {
  const volume = browserSettings().get("volume");
  if (seat === null || volume === 0) return;
  for (const event of events) {
    const tone = TONES[event.kind];
    if (tone === undefined || event.seat !== seat) continue;
    context ??= new AudioContext();
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = tone[0];
    gain.gain.setValueAtTime(Math.max(0.0001, 0.05 * (volume / 100)), context.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, context.currentTime + tone[1]);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start();
    oscillator.stop(context.currentTime + tone[1]);
  }
}
