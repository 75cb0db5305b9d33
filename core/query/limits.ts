/** The query limits of the configuration, read in one place: what the parser bounds (QUERYSTRING_MAX_PARSE_DEPTH,
 * QUERY_LIMIT_MAX) and what the planner adds (QUERY_LIMIT_DEFAULT for nested relations, MAX_RELATIONAL_DEPTH). */
import type { Config } from '../config.ts';
import type { ParseLimits } from './parse.ts';
import type { PlanContext } from './plan.ts';

export type ParseLimitConfig = Pick<Config, 'querystringMaxParseDepth' | 'queryLimitMax'>;
export type PlanLimitConfig = ParseLimitConfig & Pick<Config, 'queryLimitDefault' | 'maxRelationalDepth'>;

export function parseLimits(config: ParseLimitConfig): ParseLimits {
  return { maxDepth: config.querystringMaxParseDepth, maxLimit: config.queryLimitMax };
}

export function planLimits(config: PlanLimitConfig): PlanContext['limits'] {
  return { ...parseLimits(config), defaultLimit: config.queryLimitDefault, maxRelationalDepth: config.maxRelationalDepth };
}
