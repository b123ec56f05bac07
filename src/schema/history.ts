/**
 * History as the routes answer it (docs/api.md, History): the versions of a
 * template or role, one version's bytes, a role's diff, and the library's
 * recent commits. Node-free, so the page can import the types.
 */
import { type Static, Type } from '@sinclair/typebox';

/**
 * A commit id as the routes take it: 7 to 40 lowercase hex digits. Hex only,
 * so nothing a client sends can read as an option or a revision expression
 * when it reaches git.
 */
export const CommitId = Type.String({ pattern: '^[0-9a-f]{7,40}$', description: 'a commit id, 7 to 40 lowercase hex digits' });

/** The `?against=` prefix that names a version: `version:<commit>`. */
export const VERSION_PREFIX = 'version:';

export const HISTORY_LIMITS = {
  /** versions or commits per page when `limit` is absent */
  defaultLimit: 20,
  /** the most a page holds: each version is read from git to give its state and ETag */
  maxLimit: 100,
} as const;

export const HistoryQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,3}$',
        description: `how many, 1 to ${HISTORY_LIMITS.maxLimit}; default ${HISTORY_LIMITS.defaultLimit}`,
      }),
    ),
    before: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{7,40}$', description: "the page after this commit (the `next` of the page before), in the walk from today's HEAD" }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{40}(?:[0-9a-f]{24})?\\.[0-9a-f]{40}(?:[0-9a-f]{24})?$',
        description: 'the page after the page before, in the same walk: its `cursor`, as it was (not with `before`)',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * What a version is, measured against today's shipped version of the name:
 * `same_as_shipped` / `edited` (a shipped name, its bytes equal to today's
 * shipped bytes or not), `custom` (no shipped template or built-in role of
 * that name), `shipped` (no copy at that commit: a reset, so the shipped
 * version loaded), `deleted` (a custom name with no file at that commit).
 */
export const VERSION_STATES = ['same_as_shipped', 'edited', 'custom', 'shipped', 'deleted'] as const;
export const VersionStateSchema = Type.Union(VERSION_STATES.map((s) => Type.Literal(s)));
export type VersionState = Static<typeof VersionStateSchema>;

const CommitFields = {
  commit: Type.String({ description: 'the full commit id (40 hex digits)' }),
  at: Type.String({ description: 'when it was committed, ISO 8601 in UTC' }),
  author: Type.String({ description: 'the commit author, `name <email>`: the user who asked, else DESK_AUTHOR (docs/history.md)' }),
  who: Type.Union([Type.String(), Type.Null()], { description: "who asked, from the commit trailer: the user's name, or the client address when the desk knows no users; null when none" }),
  message: Type.String({ description: "the commit's subject line, e.g. `save quick-fix (edited)`" }),
};

export const VersionSchema = Type.Object(
  {
    ...CommitFields,
    shared: Type.Boolean({
      description:
        "false for a version of this desk's own that no push sends: its copy while a sync left the name diverged, or the one take theirs replaced, kept on a local ref (docs/history.md); restore takes it like any version",
    }),
    state: VersionStateSchema,
    etag: Type.Union([Type.String(), Type.Null()], {
      description: 'the ETag the name would answer with, were this version loaded; null when it had no copy (shipped, deleted)',
    }),
  },
  { additionalProperties: false },
);
export type Version = Static<typeof VersionSchema>;

/**
 * Where the next page starts in the walk this one read (docs/history.md,
 * The walk): the head the first page walked from and the last commit shown.
 * Commits that arrive between pages (a save, a sync's merge) join no walk
 * under way; a first page sees them.
 */
const PageCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'pass as `cursor` for the next page of the same walk, each commit once whatever `limit` is; null on the last page',
});

export const HistoryAnswerSchema = Type.Object(
  {
    versions: Type.Array(VersionSchema, { description: 'newest first' }),
    next: Type.Union([Type.String(), Type.Null()], { description: 'the last commit shown: pass as `before` for the next page; null on the last page' }),
    cursor: PageCursor,
  },
  { additionalProperties: false },
);
export type HistoryAnswer = Static<typeof HistoryAnswerSchema>;

export const TemplateVersionSchema = Type.Object(
  {
    commit: Type.String(),
    source: Type.String({ description: 'the bytes of templates/<name>.yaml at that commit' }),
    etag: Type.String(),
  },
  { additionalProperties: false },
);
export type TemplateVersion = Static<typeof TemplateVersionSchema>;

export const RoleVersionSchema = Type.Object(
  {
    commit: Type.String(),
    role_md: Type.String({ description: 'the bytes of roles/<name>/role.md at that commit' }),
    kit_json: Type.Union([Type.String(), Type.Null()], { description: 'the bytes of kit.json at that commit; null when the role had no kit' }),
    etag: Type.String(),
  },
  { additionalProperties: false },
);
export type RoleVersion = Static<typeof RoleVersionSchema>;

/** A role diffed against one of its versions: a unified diff per file. */
export const RoleDiffSchema = Type.Object(
  {
    against: Type.Object({ name: Type.String(), kind: Type.Literal('version'), commit: Type.String() }, { additionalProperties: false }),
    identical: Type.Boolean(),
    role_md: Type.Union([Type.String(), Type.Null()], { description: "unified diff of role.md, before = the version; '' when the same, null when too different" }),
    kit_json: Type.Union([Type.String(), Type.Null()], { description: "unified diff of kit.json (absent reads as empty), same rules" }),
  },
  { additionalProperties: false },
);
export type RoleDiff = Static<typeof RoleDiffSchema>;

export const RestoreBody = Type.Object({ commit: CommitId }, { additionalProperties: false });

/** What a commit touched, as names. */
export const ChangedNameSchema = Type.Object(
  { kind: Type.Union([Type.Literal('template'), Type.Literal('role')]), name: Type.String() },
  { additionalProperties: false },
);

export const RecentAnswerSchema = Type.Object(
  {
    commits: Type.Array(
      Type.Object({ ...CommitFields, names: Type.Array(ChangedNameSchema, { description: 'the templates and roles it changed' }) }, { additionalProperties: false }),
      { description: 'newest first' },
    ),
    next: Type.Union([Type.String(), Type.Null()], { description: 'the last commit shown: pass as `before` for the next page; null on the last page' }),
    cursor: PageCursor,
  },
  { additionalProperties: false },
);
export type RecentAnswer = Static<typeof RecentAnswerSchema>;
