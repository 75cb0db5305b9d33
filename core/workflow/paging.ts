/** `limit`, `page` and `offset` of the workflow lists (GET /workflows, GET /workflow-tasks), checked as the query
 * language checks them: whole numbers, `limit` -1 for all, at most QUERY_LIMIT_MAX. */
import type { ServiceContext } from '../context.ts';
import { InvalidQueryError } from '../errors.ts';

export interface PageQuery { limit?: string; page?: string; offset?: string }

function whole(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidQueryError(`"${name}" must be an integer of at least ${min}.`);
  return n;
}

/** The page asked for; `limit` -1 (all) when none is asked and `fallback` is -1. */
export function pageOf(ctx: ServiceContext, query: PageQuery, fallback: number): { limit: number; offset: number } {
  const limit = whole(query.limit, 'limit', -1) ?? fallback;
  const max = ctx.config.queryLimitMax;
  if (max >= 0 && query.limit !== undefined && (limit === -1 || limit > max)) throw new InvalidQueryError(`"limit" may not exceed ${max}.`);
  const page = whole(query.page, 'page', 1);
  const offset = whole(query.offset, 'offset', 0) ?? (page !== undefined && limit > 0 ? (page - 1) * limit : 0);
  return { limit, offset };
}

/** ` limit $n offset $m` for the page, with its parameters appended to `params`. */
export function pageSql(page: { limit: number; offset: number }, params: unknown[]): string {
  let sql = '';
  if (page.limit >= 0) {
    params.push(page.limit);
    sql += ` limit $${params.length}`;
  }
  params.push(page.offset);
  return `${sql} offset $${params.length}`;
}
