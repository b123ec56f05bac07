import { isAbsolute, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageVersion } from '../paths.js';
import type { FileResult } from './results.js';
import type { RuleHelp } from './rules.js';

/**
 * A SARIF 2.1.0 log (the OASIS standard code scanning reads): one run of the
 * tool `desk-library`, every code as a rule with its help from
 * docs/problems.md, one result per problem with the code as `ruleId` and its
 * line and column as the region (line 1 for a problem about the whole
 * file). test/cli-formats.test.ts holds it to the SARIF JSON schema. No
 * `informationUri`: the package has no `homepage` to give, which is the one
 * warning the SARIF Multitool leaves (SARIF2005; docs/operations.md).
 */
export function sarifLog(results: readonly FileResult[], rules: readonly RuleHelp[], exitCode: number): object {
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'desk-library',
            version: packageVersion,
            rules: rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.summary },
              help: { text: r.help, markdown: r.help },
              defaultConfiguration: { level: r.severity },
            })),
          },
        },
        invocations: [{ executionSuccessful: exitCode !== 2, exitCode }],
        results: results.flatMap((f) =>
          f.problems.map((p) => {
            const uri = artifactUri(f.file);
            // a problem about the whole file points at its first line: a result with no region is what
            // the SARIF Multitool flags (SARIF2017), and code scanning shows it on line 1 anyway
            const region = { region: p.line !== undefined ? { startLine: p.line, startColumn: p.column ?? 1 } : { startLine: 1 } };
            return {
              ruleId: p.code,
              ...(index.has(p.code) ? { ruleIndex: index.get(p.code) } : {}),
              level: p.severity,
              message: { text: p.message },
              ...(uri ? { locations: [{ physicalLocation: { artifactLocation: { uri }, ...region } }] } : {}),
            };
          }),
        ),
      },
    ],
  };
}

/**
 * A path as a URI reference: relative paths stay relative (code scanning
 * reads them from the repository root), with forward slashes and each
 * segment percent-encoded; an absolute path becomes a file: URL. Stdin with
 * no --name has none.
 */
export function artifactUri(file: string): string | null {
  if (file === '-') return null;
  if (isAbsolute(file)) return pathToFileURL(file).href;
  return file
    .split(sep)
    .join('/')
    .replace(/^(\.\/)+/, '')
    .split('/')
    .map(encodeURIComponent)
    .join('/');
}
