/**
 * Who watches a match, in words, for the match page: the spectator count (`joined.spectators`, then
 * each `status.spectators`) and, on a ranked match's spectator stream, the delay the server enforces
 * (`joined.delay`). Pure.
 */

/** "2 watching", "nobody watching", plus "· you are watching 10 s behind" for a delayed stream. */
export function watchingText(spectators: number, role: "player" | "spectator", delaySeconds: number): string {
  const count = spectators === 0 ? "nobody watching" : `${spectators} watching`;
  const yours = role === "spectator" && spectators > 0 ? `${count} (you included)` : count;
  if (role === "spectator" && delaySeconds > 0) {
    return `${yours} · watching ${Math.round(delaySeconds)} s behind (a ranked match is shown late, so watching cannot help a player)`;
  }
  return yours;
}
