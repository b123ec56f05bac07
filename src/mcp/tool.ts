/**
 * What a tool is (docs/conductor.md): its name and words for a model, the
 * schemas of its arguments and result, its hints, and the call. A call that
 * is not well formed, or that the desk refuses, is a tool result with
 * `isError: true` whose text lists the problems — a model reads it and fixes
 * its call; JSON-RPC errors are kept for protocol faults.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { Library } from '../library/types.js';
import type { Asker, LaunchStore, ProposalStore } from '../library/index.js';

/** The MCP App that shows a template card or a launch draft in the conversation (./card-app.ts). */
export const CARD_URI = 'ui://desk-library/template-card';

/** Who calls and with what: one per request. */
export interface ToolContext {
  library: Library;
  /** the stores the proposal and launch routes call (src/library/records.ts) */
  proposals: ProposalStore;
  launches: LaunchStore;
  /** the person the token names (their `from`, their commits' author), their role and address */
  asker: Asker;
  /** the request ended, or the service stops: a wait ends now */
  signal: AbortSignal;
  /** tells the caller how a long call goes; a no-op when it gave no progress token */
  progress(progress: number, total: number, message: string): Promise<void>;
}

export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: false;
}

/** What a call answers: the structured result, and a few lines for hosts that show only text. */
export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface Tool<A extends TSchema = TSchema> {
  name: string;
  title: string;
  /** written for a model: what it does, when to call it, what comes back */
  description: string;
  args: A;
  result: TSchema;
  hints: ToolHints;
  /** its result is shown by the card app */
  card?: true;
  run(args: Static<A>, ctx: ToolContext): Promise<ToolAnswer>;
}

/** Keeps a tool's argument type tied to its schema. */
export const tool = <A extends TSchema>(t: Tool<A>): Tool => t as unknown as Tool;

/** A problem as a refused call lists it (the validator's and the request checks' own shape, less what a model need not read). */
export interface CallProblem {
  code: string;
  path: string;
  message: string;
}
