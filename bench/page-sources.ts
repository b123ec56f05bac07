/**
 * The sources the page benchmark types into: a realistic template at the
 * 128 KiB size cap (a chain of model nodes with prompts, every cord in
 * place, valid), the largest a save accepts.
 */

/**
 * A valid template just under `cap` bytes: `count` model nodes in a chain
 * (under the format's node cap), each with a folded prompt long enough to
 * fill the size, every cord in place.
 */
export function capTemplate(name = 'big-chain', cap = 128 * 1024, count = 240): string {
  const head =
    `# A long chain of workers, each with its own prompt: as large as a template may be.\n` +
    `template:\n  name: ${name}\n  purpose: A long chain of workers, each with a prompt of its own, at the size cap\n` +
    `  inputs:\n    - name: tickets\n      required: true\n      type: list\n      description: the tickets to work through\n` +
    `  entry: n0\n  inlet: start\nversion: 1\nnodes:\n`;
  const gate = '  gate:\n    type: builtin\n    builtin: human_gate\n    prompt: Approve the chain, or reject it with a note.\ncords:\n';
  const line = (i: number, k: number) => `      Step ${i}, note ${k}: read what the step before left for {{inputs.tickets}} and add to it.\n`;
  const node = (i: number, lines: number) =>
    `  n${i}:\n    type: model\n    role: worker\n    profile: read_only\n    prompt: >-\n` + Array.from({ length: lines }, (_, k) => line(i, k)).join('');
  const cord = (i: number) => `  - { from: n${i}.done, to: ${i + 1 < count ? `n${i + 1}.start` : 'gate.in'} }\n`;
  const build = (lines: number, extra: number) => {
    const parts = [head];
    for (let i = 0; i < count; i++) parts.push(node(i, lines + (i < extra ? 1 : 0)));
    parts.push(gate);
    for (let i = 0; i < count; i++) parts.push(cord(i));
    return parts.join('');
  };
  // whole prompt lines for every node, then one more line for as many nodes as still fit
  let lines = 1;
  while (build(lines + 1, 0).length <= cap) lines++;
  let extra = 0;
  while (extra < count && build(lines, extra + 1).length <= cap) extra++;
  return build(lines, extra);
}
