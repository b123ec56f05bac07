/**
 * The tools that ask the operator: propose a template, draft a launch, wait
 * for the decision, withdraw a draft. They call the record stores the
 * proposal and launch routes call (src/library/records.ts) with the person
 * the token names, so the limits, allowances, log lines and the commits'
 * author are the same. None of them decides: saving, approving and
 * dismissing are the operator's, at the desk.
 */
import { DeskError } from '../errors.js';
import { launchAnswer, type LaunchView, proposalAnswer } from '../library/index.js';
import { decisionText, launchDecision, proposalDecision } from './answers.js';
import { cardText, runsText } from './card-text.js';
import {
  AwaitDecisionArgs,
  DEFAULT_WAIT_SECONDS,
  DecisionResult,
  DraftLaunchArgs,
  LaunchResult,
  ProposalResult,
  ProposeTemplateArgs,
  WithdrawLaunchArgs,
} from './schemas.js';
import { tool } from './tool.js';

/** How often a wait tells a caller that gave a progress token that it is still waiting. */
export const PROGRESS_EVERY_MS = 2_000;

const ASKS = { readOnlyHint: false, destructiveHint: false, openWorldHint: false } as const;

function problemLines(problems: readonly { severity?: string; code: string; path: string; message: string }[]): string {
  return problems.map((p) => `- ${p.severity ? `${p.severity} ` : ''}${p.code} at ${p.path || '/'}: ${p.message}`).join('\n');
}

function draftText(v: LaunchView): string {
  const a = launchAnswer(v);
  if (a.status !== 'pending') return `launch draft ${a.id} of ${a.template} is ${a.status}${a.decided_by ? ` by ${a.decided_by}` : ''}.`;
  const preview = a.preview.ok ? `${a.preview.runs.length} run(s) on approval` : 'its preview does not check';
  return `launch draft ${a.id} of ${a.template} waits for the operator: ${preview}.${a.preview.problems.length ? `\n${problemLines(a.preview.problems)}` : ''}${a.preview.runs.length ? `\n${runsText(a.preview.runs)}` : ''}`;
}

export const proposeTemplate = tool({
  name: 'propose_template',
  title: 'Propose a template',
  description:
    'Proposes a new template (or a new version of one) to the operator: a name, a one-line purpose and the whole template file. The desk validates it and shows the operator its card; nothing is written to the library. Only the operator saves it — possibly edited or under another name — or dismisses it with a note. An invalid text is kept and says why (valid: false, problems), so the operator sees it; validate_template first to avoid that. Then call await_decision with the returned id to learn the decision.',
  args: ProposeTemplateArgs,
  result: ProposalResult,
  hints: ASKS,
  card: true,
  async run(args, { library, proposals, asker }) {
    const r = await proposals.create(args, asker);
    const a = await proposalAnswer(library, r);
    const head = `proposal ${a.id} of ${a.name} is pending, from ${a.from}: ${a.valid ? 'valid' : `not valid (${a.problems.length} problems)`}. The operator decides at the desk; call await_decision with id ${a.id}.`;
    return { structured: a, text: `${head}\n${cardText(a.card)}` };
  },
});

export const draftLaunch = tool({
  name: 'draft_launch',
  title: 'Draft a launch',
  description:
    "Drafts a launch of a template for the operator to approve: the template's name and its inputs (list_templates shows what each template takes). The desk checks the inputs as a launch would and answers the preview: one run per ticket of a ticket template, or one run with the whole list when its list input runs together, each node with its prompt folded. Inputs that do not check (a missing required input, a value that brings a {{…}} placeholder or a ::: fence into a prompt, …) are refused with their problems and nothing is kept. The desk starts nothing: once the operator approves, await_decision answers the runs to start.",
  args: DraftLaunchArgs,
  result: LaunchResult,
  hints: ASKS,
  card: true,
  async run(args, { launches, asker }) {
    const v = await launches.create(args, asker);
    return { structured: launchAnswer(v), text: `${draftText(v)} Call await_decision with id ${v.rec.id}.` };
  },
});

export const awaitDecision = tool({
  name: 'await_decision',
  title: "Wait for the operator's decision",
  description: `Waits for the operator's decision on a proposal or a launch draft (the id propose_template or draft_launch answered), up to wait_s seconds (default ${DEFAULT_WAIT_SECONDS}, at most 55), and answers it as soon as it is made: saved (with saved_as, the name it was saved under, and edited when the operator changed it first), approved (with the runs to start), dismissed (with the operator's note), withdrawn — or still pending when the wait ends; then call it again. Sends progress notifications while it waits when the call carries a progress token.`,
  args: AwaitDecisionArgs,
  result: DecisionResult,
  hints: { readOnlyHint: true, openWorldHint: false },
  async run({ id, wait_s }, ctx) {
    const { proposals, launches, signal } = ctx;
    const ms = (wait_s ?? DEFAULT_WAIT_SECONDS) * 1000;
    const started = Date.now();
    const tell = () => ctx.progress(Math.min(ms, Date.now() - started) / 1000, ms / 1000, 'waiting for the operator').catch(() => {});
    const ticker = ms > 0 ? setInterval(tell, PROGRESS_EVERY_MS) : null;
    try {
      if (ms > 0) void tell();
      if (await proposals.get(id)) {
        const r = await proposals.getWhenDecided(id, ms, signal);
        if (!r) throw new DeskError('not_found', `no proposal ${id}`);
        const d = proposalDecision(r);
        return { structured: d, text: decisionText(d) };
      }
      if (!(await launches.get(id))) throw new DeskError('not_found', `no proposal or launch draft ${id}`);
      const v = await launches.getWhenDecided(id, ms, signal);
      if (!v) throw new DeskError('not_found', `no launch draft ${id}`);
      const d = launchDecision(v);
      return { structured: d, text: decisionText(d) };
    } finally {
      if (ticker) clearInterval(ticker);
    }
  },
});

export const withdrawLaunch = tool({
  name: 'withdraw_launch',
  title: 'Withdraw a launch draft',
  description:
    'Withdraws a pending launch draft of your own that you no longer want: it becomes withdrawn and the operator no longer sees it as waiting. Calling it again changes nothing: a draft already withdrawn, or already decided by the operator, is refused (already_decided); another conductor\'s draft is refused (forbidden).',
  args: WithdrawLaunchArgs,
  result: LaunchResult,
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run({ id }, { launches, asker }) {
    const v = await launches.withdraw(id, asker);
    return { structured: launchAnswer(v), text: draftText(v) };
  },
});
