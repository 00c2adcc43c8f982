/**
 * The replay timeline's event markers: the moments a viewer wants to find (a death, a landing of
 * garbage, a big attack, a round cleared), read from the stream's own events. Pure: the events of each
 * frame record in, the markers out, in frame order.
 *
 * Which events mark is decided by their kind names in the stream tables (`joined.tables.events`): a
 * ruleset whose events have other names gets no markers, never wrong ones.
 */

import type { GameEvent, Vocabulary } from "../net/vocabulary";
import type { FrameBody } from "../net/wire";

export type MarkerKind = "death" | "landing" | "attack" | "round-clear";

/** An attack worth at least this many units is a big one: more than one crushed Sno-Bee, an egg or a
 * single eaten enemy (3 units each, rules/versus/tables.py `AttackTable`), i.e. a double crush, a
 * diamond line (8 or 12), a round clear (8 and more) or a chain. */
export const BIG_ATTACK_UNITS = 6;

export interface Marker {
  /** The frame whose record carried the event (seek here to see it happen). */
  frame: number;
  kind: MarkerKind;
  /** The seat it happened to (a death, a round clear, a landing) or that sent it (an attack). */
  seat: number;
  /** Units of an attack or a landing. */
  units?: number;
}

/** The marker an event makes, if any. */
export function markerOf(event: GameEvent, frame: number): Marker | null {
  const seat = typeof event.seat === "number" ? event.seat : -1;
  if (seat < 0) return null;
  const units = typeof event.units === "number" ? event.units : 0;
  switch (event.kind) {
    case "death":
      return { frame, kind: "death", seat };
    case "round-clear":
      return { frame, kind: "round-clear", seat };
    case "landing":
      return { frame, kind: "landing", seat, units };
    case "attack":
      return units >= BIG_ATTACK_UNITS ? { frame, kind: "attack", seat, units } : null;
    default:
      return null;
  }
}

/** Every marker of a replay's frame records (indexed by frame; holes are skipped), in frame order. */
export function timelineMarkers(vocabulary: Vocabulary, bodies: readonly (FrameBody | undefined)[]): Marker[] {
  const found: Marker[] = [];
  for (const body of bodies) {
    if (body === undefined) continue;
    for (const values of body.events) {
      const marker = markerOf(vocabulary.event(values), body.frame);
      if (marker !== null) found.push(marker);
    }
  }
  return found;
}

/** A marker in words ("ann died", "bob: a landing of 4"). */
export function markerText(marker: Marker, names: readonly string[]): string {
  const who = names[marker.seat] ?? `seat ${marker.seat}`;
  switch (marker.kind) {
    case "death":
      return `${who} lost a life`;
    case "round-clear":
      return `${who} cleared a round`;
    case "landing":
      return `${marker.units ?? 0} units landed on ${who}`;
    case "attack":
      return `${who} sent a big attack (${marker.units ?? 0} units)`;
  }
}

/** The marker just before `frame` (`direction` −1) or just after it (+1), if any. */
export function adjacentMarker(markers: readonly Marker[], frame: number, direction: 1 | -1): Marker | null {
  if (direction > 0) return markers.find((marker) => marker.frame > frame) ?? null;
  for (let index = markers.length - 1; index >= 0; index -= 1) {
    if (markers[index]!.frame < frame) return markers[index]!;
  }
  return null;
}

/** The last marker at or before `frame` (the summary's "last event"). */
export function lastMarker(markers: readonly Marker[], frame: number): Marker | null {
  let last: Marker | null = null;
  for (const marker of markers) {
    if (marker.frame > frame) break;
    last = marker;
  }
  return last;
}
