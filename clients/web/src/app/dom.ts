/**
 * Building the page's elements: a tag with its attributes and children, a button with its action.
 */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function button(label: string, id: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", { id, type: "button" }, label);
  node.addEventListener("click", onClick);
  return node;
}
