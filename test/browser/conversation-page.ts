/**
 * The page script of the conversation test, bundled by esbuild: `window.conversationPage.run(...)`
 * runs our HttpAgent with `runAgent`, renders `agent.messages` and `agent.state` into the DOM from
 * its subscribers (with the demo's renderer), and reports what the DOM showed after every change,
 * what the agent ended with, and what `runAgent` resolved to.
 */
import { HttpAgent, type Message, type Transport } from "../../src/client/index.js";
import { renderConversation, renderState } from "../../demo/conversation-view.js";

/** What the test asks the page to run. */
export interface ConversationPageRun {
  url: string;
  transport: Transport;
  /** The conversation before the run (the user's question). */
  initialMessages: Message[];
  runId?: string;
}

/** A message as the DOM shows it, read back from the renderer's markup. */
export interface ShownMessage {
  id: string;
  role: string;
  label: string;
  text: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  toolCallId?: string;
  activityType?: string;
}

/** What the page reports: plain data, so that it crosses into the test. */
export interface ConversationPageOutcome {
  /** The `content-type` of each response. */
  contentTypes: (string | null)[];
  /** The conversation the DOM showed after each `onMessagesChanged`, in order. */
  snapshots: ShownMessage[][];
  /** The state the DOM showed after each `onStateChanged`, as its text. */
  stateSnapshots: string[];
  /** The ids of the messages `onNewMessage` announced, in order. */
  newMessageIds: string[];
  /** The DOM at the end. */
  shown: ShownMessage[];
  /** The state element's text at the end. */
  shownState: string;
  /** `agent.messages` and `agent.state` at the end. */
  messages: Message[];
  state: unknown;
  /** What `runAgent` resolved to, or how it failed. */
  result?: unknown;
  newMessages?: Message[];
  error?: { name: string; code?: string; message: string };
}

/** Reads the conversation back from the renderer's markup, as a reader would see it. */
function readConversation(list: HTMLElement): ShownMessage[] {
  return [...list.querySelectorAll<HTMLLIElement>(":scope > li")].map((item) => {
    const shown: ShownMessage = {
      id: item.dataset.id ?? "",
      role: item.dataset.role ?? "",
      label: item.querySelector(".role")?.textContent ?? "",
      text: item.querySelector(".text")?.textContent ?? "",
    };
    const calls = [...item.querySelectorAll<HTMLElement>(".tool-call")].map((call) => ({
      id: call.dataset.id ?? "",
      name: call.querySelector(".name")?.textContent ?? "",
      arguments: call.querySelector(".args")?.textContent ?? "",
    }));
    if (calls.length > 0) shown.toolCalls = calls;
    if (item.dataset.toolCallId !== undefined) shown.toolCallId = item.dataset.toolCallId;
    if (item.dataset.activityType !== undefined) shown.activityType = item.dataset.activityType;
    return shown;
  });
}

async function run(options: ConversationPageRun): Promise<ConversationPageOutcome> {
  const contentTypes: (string | null)[] = [];
  const agent = new HttpAgent({
    url: options.url,
    transport: options.transport,
    initialMessages: options.initialMessages,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      contentTypes.push(response.headers.get("content-type"));
      return response;
    },
  });
  const list = document.createElement("ol");
  const stateView = document.createElement("pre");
  document.body.replaceChildren(list, stateView);
  const snapshots: ShownMessage[][] = [];
  const stateSnapshots: string[] = [];
  const newMessageIds: string[] = [];
  renderConversation(list, agent.messages);
  renderState(stateView, agent.state);
  // The front end's subscriber, as an app would keep one for the agent's life.
  agent.subscribe({
    onMessagesChanged: ({ messages }) => {
      renderConversation(list, messages as Message[]);
      snapshots.push(readConversation(list));
    },
    onStateChanged: ({ state }) => {
      renderState(stateView, state);
      stateSnapshots.push(stateView.textContent ?? "");
    },
    onNewMessage: ({ message }) => void newMessageIds.push(message.id),
  });
  const outcome = (): ConversationPageOutcome => ({
    contentTypes,
    snapshots,
    stateSnapshots,
    newMessageIds,
    shown: readConversation(list),
    shownState: stateView.textContent ?? "",
    messages: structuredClone(agent.messages),
    state: structuredClone(agent.state),
  });
  try {
    const { result, newMessages } = await agent.runAgent({ runId: options.runId });
    return { ...outcome(), result, newMessages };
  } catch (err) {
    const e = err as Error & { code?: string };
    return { ...outcome(), error: { name: e.name, code: e.code, message: e.message } };
  }
}

(globalThis as unknown as { conversationPage: { run: typeof run } }).conversationPage = { run };
