/**
 * What an agent says it can do, as `@ag-ui/core` 1.0 describes it (`AgentCapabilities`, which an
 * agent's optional `getCapabilities()` answers). Every field is optional: an agent states what it
 * knows about itself and nothing more. Types only; agui-wire neither sends nor checks them.
 *
 * @module
 */
import type { Tool } from "../model/index.js";
import type { Metadata } from "./ag-ui-types.js";

/** A subagent an agent can delegate to. */
export type SubagentInfo = { name: string; description?: string };

/** Who the agent is. */
export type IdentityCapabilities = {
  name?: string;
  type?: string;
  description?: string;
  version?: string;
  provider?: string;
  documentationUrl?: string;
  metadata?: Metadata;
};

/** How the agent can be reached. */
export type TransportCapabilities = {
  streaming?: boolean;
  websocket?: boolean;
  httpBinary?: boolean;
  pushNotifications?: boolean;
  resumable?: boolean;
};

/** What the agent does with tools. */
export type ToolsCapabilities = {
  supported?: boolean;
  items?: Tool[];
  parallelCalls?: boolean;
  clientProvided?: boolean;
};

/** What the agent can answer with. */
export type OutputCapabilities = { structuredOutput?: boolean; supportedMimeTypes?: string[] };

/** How the agent keeps state. */
export type StateCapabilities = { snapshots?: boolean; deltas?: boolean; memory?: boolean; persistentState?: boolean };

/** Whether and how the agent works with other agents. */
export type MultiAgentCapabilities = {
  supported?: boolean;
  delegation?: boolean;
  handoffs?: boolean;
  subagents?: SubagentInfo[];
};

/** Whether the agent reasons visibly. */
export type ReasoningCapabilities = { supported?: boolean; streaming?: boolean; encrypted?: boolean };

/** Media the agent takes. */
export type MultimodalInputCapabilities = { image?: boolean; audio?: boolean; video?: boolean; pdf?: boolean; file?: boolean };

/** Media the agent produces. */
export type MultimodalOutputCapabilities = { image?: boolean; audio?: boolean };

/** Media in and out. */
export type MultimodalCapabilities = { input?: MultimodalInputCapabilities; output?: MultimodalOutputCapabilities };

/** How the agent runs code and how long it may run. */
export type ExecutionCapabilities = {
  codeExecution?: boolean;
  sandboxed?: boolean;
  maxIterations?: number;
  maxExecutionTime?: number;
};

/** How a person can take part in a run. */
export type HumanInTheLoopCapabilities = {
  supported?: boolean;
  approvals?: boolean;
  interventions?: boolean;
  feedback?: boolean;
  interrupts?: boolean;
  approveWithEdits?: boolean;
};

/** Everything an agent can say about what it can do. */
export type AgentCapabilities = {
  identity?: IdentityCapabilities;
  transport?: TransportCapabilities;
  tools?: ToolsCapabilities;
  output?: OutputCapabilities;
  state?: StateCapabilities;
  multiAgent?: MultiAgentCapabilities;
  reasoning?: ReasoningCapabilities;
  multimodal?: MultimodalCapabilities;
  execution?: ExecutionCapabilities;
  humanInTheLoop?: HumanInTheLoopCapabilities;
  /** Anything else, by the agent's own keys. */
  custom?: Record<string, unknown>;
};
