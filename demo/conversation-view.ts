/**
 * Renders an agent's conversation (`agent.messages`) and state into the DOM, for the demo page
 * and the browser tests: one `<li>` per message, with its role and text, an assistant's tool
 * calls (name and arguments), a tool result with the call it answers, reasoning, and activity.
 *
 * The markup is what a reader (or a test) relies on: each `<li>` has `data-id` and `data-role`
 * (and `data-tool-call-id` for a tool result, `data-activity-type` for an activity), a `.role`
 * label, a `.text` element with the message's text, and an assistant's calls as `.tool-call`
 * elements (`data-id`) holding `.name` and `.args`. Everything is set with `textContent`: message
 * data never becomes markup.
 */
import type { Message } from "../src/index.js";

/** What a message's content says as text: a string as it is, content parts as their text. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content.map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : `[${part.type ?? "part"}]`)).join("");
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The label shown before a message: its role, and for a tool result the tool it answers. */
function label(message: Message, messages: readonly Message[]): string {
  if (message.role === "tool") {
    const call = messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : [])).find((c) => c.id === message.toolCallId);
    return call ? `tool result (${call.function.name})` : "tool result";
  }
  if (message.role === "activity") return `activity ${message.activityType}`;
  return message.role;
}

/** Fills `item` with `message`. */
function fill(item: HTMLLIElement, message: Message, messages: readonly Message[]): void {
  item.dataset.id = message.id;
  item.dataset.role = message.role;
  const children: HTMLElement[] = [element("span", "role", label(message, messages))];
  if (message.role === "activity") {
    item.dataset.activityType = message.activityType;
    children.push(element("code", "text", JSON.stringify(message.content)));
  } else if (message.role === "tool") {
    item.dataset.toolCallId = message.toolCallId;
    children.push(element("code", "text", textOf(message.content)));
  } else {
    children.push(element("div", "text", textOf(message.content)));
  }
  if (message.role === "assistant") {
    for (const call of message.toolCalls ?? []) {
      const box = element("div", "tool-call");
      box.dataset.id = call.id;
      box.append(element("span", "name", call.function.name), element("code", "args", call.function.arguments));
      children.push(box);
    }
  }
  item.replaceChildren(...children);
}

/** What each list last rendered, by message id: the message as JSON, so that unchanged ones are left alone. */
const rendered = new WeakMap<HTMLElement, Map<string, { item: HTMLLIElement; json: string }>>();

/**
 * Renders `messages` into `list`, one `<li>` per message in order. A message whose content did
 * not change keeps its element untouched, so that a run streaming into one message redraws only
 * that one.
 *
 * @throws Never for messages of the AG-UI model.
 */
export function renderConversation(list: HTMLElement, messages: readonly Message[]): void {
  const before = rendered.get(list) ?? new Map<string, { item: HTMLLIElement; json: string }>();
  const after = new Map<string, { item: HTMLLIElement; json: string }>();
  const items: HTMLLIElement[] = [];
  for (const message of messages) {
    // A tool result's label names its call, which may arrive after it: include the calls' names.
    const json = JSON.stringify([message, message.role === "tool" ? label(message, messages) : ""]);
    let entry = before.get(message.id);
    if (entry === undefined || after.has(message.id)) entry = { item: document.createElement("li"), json: "" };
    if (entry.json !== json) {
      fill(entry.item, message, messages);
      entry.json = json;
    }
    after.set(message.id, entry);
    items.push(entry.item);
  }
  rendered.set(list, after);
  const current = [...list.children];
  if (current.length !== items.length || items.some((item, i) => current[i] !== item)) list.replaceChildren(...items);
}

/**
 * Shows `state` (any JSON value) in `target` as JSON, indented by `indent` spaces (0: on one line).
 *
 * @throws Never.
 */
export function renderState(target: HTMLElement, state: unknown, indent = 2): void {
  target.textContent = JSON.stringify(state ?? null, null, indent);
}
