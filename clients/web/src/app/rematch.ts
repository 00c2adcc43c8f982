/**
 * Rematch offers after a room or ranked match (protocol/README.md `rematch`, `rematch-answer`,
 * `rematch-offer`, `rematch-refused`, `rematch-ready`), on the ended match's own connection: "Rematch"
 * offers; every other player sees the offer with its countdown and accepts or declines (in a room of 3
 * or 4 the rematch is made once all the others accept); a declined, expired or refused offer is said;
 * on `rematch-ready` the page goes to the new match.
 */

import type { RematchMessage } from "../net/wire";
import { secondsLeft } from "./connection";
import { button, el } from "./dom";

/** What the panel needs of the match's connection. */
export interface RematchLink {
  rematch(): boolean;
  rematchAnswer(accept: boolean): boolean;
}

/** What a refusal says, by `rematch-refused.reason` (and who said no). */
export function refusalText(
  message: { reason: string; code?: string | null; message?: string | null }, iDeclined: boolean, other: string,
): string {
  switch (message.reason) {
    case "declined":
      return iDeclined ? "You declined the rematch." : `${other} declined the rematch.`;
    case "expired":
      return "The rematch offer expired without an answer.";
    default:
      return `No rematch: ${message.message ?? "the server refused it"}${message.code ? ` (${message.code})` : ""}.`;
  }
}

export class RematchPanel {
  readonly element = el("div", { id: "rematch-panel" });
  private readonly say = el("p", { id: "rematch-state", class: "message", role: "status" });
  private readonly offerButton: HTMLButtonElement;
  private readonly answers: HTMLElement;
  private offer: { seat: number; expires: number; at: number } | null = null;
  private iDeclined = false;
  private iAccepted = false;
  private timer: number | undefined;

  constructor(
    private readonly link: RematchLink,
    private readonly seat: number,
    private readonly names: () => string[],
    private readonly go: (match: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.offerButton = button("Rematch", "rematch", () => this.send());
    this.answers = el("span", { class: "hidden", id: "rematch-answers" },
      button("Accept", "rematch-accept", () => this.answer(true)), " ",
      button("Decline", "rematch-decline", () => this.answer(false)));
    this.element.append(this.offerButton, " ", this.answers, this.say);
  }

  /** The other players' names ("bob", "bob and cy", "bob, cy and dee"). */
  private get others(): string {
    const names = this.names().filter((_, index) => index !== this.seat);
    if (names.length === 0) return "your opponent";
    return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]!}`;
  }

  /** Who declined, as far as this page knows: the one other player, else one of them. */
  private get decliner(): string {
    return this.names().length > 2 ? "Another player" : this.others;
  }

  private send(): void {
    this.iDeclined = false;
    if (!this.link.rematch()) this.say.textContent = "The match's connection is closed: no rematch can be offered.";
    else this.say.textContent = "Offering a rematch…";
  }

  private answer(accept: boolean): void {
    this.iDeclined = !accept;
    this.iAccepted = accept;
    if (!this.link.rematchAnswer(accept)) this.say.textContent = "The match's connection is closed.";
    this.answers.classList.add("hidden");
  }

  /** A `rematch` error (not fatal): the offer or answer could not be. */
  refused(message: string): void {
    this.say.textContent = `No rematch: ${message}.`;
    this.offerButton.disabled = false;
  }

  onMessage(message: RematchMessage): void {
    switch (message.kind) {
      case "rematch-offer":
        this.offer = { seat: message.seat, expires: message.expires, at: this.now() };
        this.iAccepted = false;
        this.offerButton.disabled = true;
        this.answers.classList.toggle("hidden", message.seat === this.seat);
        window.clearInterval(this.timer);
        this.timer = window.setInterval(() => this.render(), 250);
        break;
      case "rematch-refused":
        this.stopOffer();
        this.say.textContent = refusalText(message, this.iDeclined, this.decliner);
        return;
      case "rematch-ready":
        this.stopOffer();
        this.say.textContent = "Rematch! Joining the new match…";
        this.go(message.rematch);
        return;
    }
    this.render();
  }

  private stopOffer(): void {
    this.offer = null;
    window.clearInterval(this.timer);
    this.offerButton.disabled = false;
    this.answers.classList.add("hidden");
  }

  private render(): void {
    const offer = this.offer;
    if (offer === null) return;
    const left = secondsLeft(offer.expires, offer.at, this.now());
    if (offer.seat === this.seat) this.say.textContent = `Rematch offered: waiting for ${this.others} to answer (${left} s).`;
    else if (this.iAccepted && this.names().length > 2) {
      this.say.textContent = `You accepted the rematch: waiting for the others to answer (${left} s).`;
    } else if (this.iAccepted) this.say.textContent = "You accepted the rematch: it is being made…";
    else this.say.textContent = `${this.names()[offer.seat] ?? "A player"} offers a rematch: accept or decline (${left} s).`;
  }

  stop(): void {
    window.clearInterval(this.timer);
  }
}
