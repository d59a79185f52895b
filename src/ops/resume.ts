import type { ResumeContext } from '../core/resume.js';
import { resumeContextFor } from '../store/resume-context.js';
import type { WorkRef } from '../store/work-store.js';
import type { OpsCtx } from './context.js';

export type { ResumeContext };

/** The resume context of an item (also the prompt watch mode gives a runner). */
export function resume(ctx: OpsCtx, ref: WorkRef): ResumeContext {
  return resumeContextFor(ctx.home(), ref, ctx.nowMs);
}
