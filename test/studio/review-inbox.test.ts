/** The review inbox in a real browser. Set up through the API: a versioned collection, a role of reviewers
 * (workflow:participate and workflow:view, versioning:view, read on the collection and on users), two reviewers and
 * an editor, an active workflow whose approval step is assigned to the first reviewer. The reviewer's inbox is empty,
 * then shows the badge and the task once the editor submits; a reject without a comment is told before anything is
 * sent, one with a comment rejects the draft; the editor resubmits and the approval updates the item; a comment is
 * added; the task is delegated to the second reviewer, who sees it, and whose stale page shows the API's 403 once the
 * task went back; a non-assignee is offered no action; an admin sees every reviewer's tasks and cancels a review (the
 * draft is a draft again), while the reviewer's stale page shows the API's 400. Every screen and dialog passes
 * axe-core and is photographed in light and dark. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_EMAIL, ADMIN_PASSWORD, api, checkScreen, JOURNEYS, launchBrowser, newPage, signIn, startStudioServer, type StudioServer } from './harness.ts';

const pk = { field: 'id', type: 'integer', schema: { is_primary_key: true, has_auto_increment: true }, meta: { hidden: true, readonly: true } };
const PEOPLE = {
  rita: { email: 'rita@example.com', password: 'rita-pass-word-1', first_name: 'Rita', last_name: 'Reviewer', token: 'rita-token' },
  sam: { email: 'sam@example.com', password: 'sam-pass-word-1', first_name: 'Sam', last_name: 'Second', token: 'sam-token' },
  ed: { email: 'ed@example.com', password: 'ed-pass-word-1', first_name: 'Ed', last_name: 'Editor', token: 'ed-token' },
};

describe.skipIf(!JOURNEYS)('Studio: review inbox', () => {
  let server: StudioServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];
  let rita: Page;
  const ids: Record<string, string> = {};
  const items: Record<string, number> = {};

  beforeAll(async () => {
    server = await startStudioServer();
    browser = await launchBrowser();
    await api(server, 'POST', '/collections', {
      collection: 'articles', meta: { display_template: '{{title}}', versioning: true }, schema: {},
      fields: [pk, { field: 'title', type: 'string', meta: { interface: 'input', sort: 1 } }, { field: 'body', type: 'text', meta: { interface: 'input-multiline', sort: 2 } }],
    });
    for (const [key, title] of [['harbour', 'Harbour lights'], ['tides', 'Tide tables'], ['gulls', 'Gulls of the pier']] as const) {
      items[key] = await api(server, 'POST', '/items/articles', { title, body: 'Once upon a shore.' });
    }
    const reviewers = await api(server, 'POST', '/policies', {
      name: 'Reviewers', app_access: true,
      permissions: [{ collection: 'articles', action: 'read' }, { collection: 'svc_users', action: 'read', fields: ['id', 'first_name', 'last_name', 'email', 'status'] }],
    });
    const editors = await api(server, 'POST', '/policies', {
      name: 'Editors', app_access: true, permissions: [{ collection: 'articles', action: 'read' }, { collection: 'articles', action: 'update' }],
    });
    for (const perm of ['workflow:participate', 'workflow:view', 'versioning:view']) {
      const [module, action] = perm.split(':');
      await api(server, 'POST', '/app-permissions', { policy: reviewers, module, action });
    }
    for (const perm of ['versioning:create', 'versioning:view', 'workflow:start']) {
      const [module, action] = perm.split(':');
      await api(server, 'POST', '/app-permissions', { policy: editors, module, action });
    }
    const reviewerRole = await api(server, 'POST', '/roles', { name: 'Reviewers', policies: [reviewers] });
    const editorRole = await api(server, 'POST', '/roles', { name: 'Editors', policies: [editors] });
    for (const [key, p] of Object.entries(PEOPLE)) {
      ids[key] = await api(server, 'POST', '/users', { ...p, status: 'active', require_password_change: false, role: key === 'ed' ? editorRole : reviewerRole });
    }
    const workflow = (await api(server, 'POST', '/workflows', { name: 'Editorial review', collection: 'articles', trigger_event: 'versions.submit' })).id;
    const steps: Record<string, string> = {};
    for (const [i, s] of [
      { key: 'start', name: 'Start', type: 'start' },
      { key: 'review', name: 'Copy review', type: 'approval', assign_type: 'user', assign_value: ids.rita, approval_mode: 'any', timeout_minutes: 2880, timeout_action: 'escalate' },
      { key: 'done', name: 'Published', type: 'end' },
    ].entries()) {
      steps[s.key] = (await api(server, 'POST', `/workflows/${workflow}/steps`, { sort_order: i, ...s })).id;
    }
    await api(server, 'POST', `/workflows/${workflow}/transitions`, { from_step_id: steps.start, to_step_id: steps.review, trigger: 'always' });
    await api(server, 'POST', `/workflows/${workflow}/transitions`, { from_step_id: steps.review, to_step_id: steps.done, trigger: 'approve' });
    await api(server, 'POST', `/workflows/${workflow}/activate`);
    rita = await signedIn(PEOPLE.rita);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signedIn(who: { email: string; password: string }): Promise<Page> {
    const opened = await newPage(browser);
    contexts.push(opened.context);
    problems.push(opened.problems);
    opened.page.setDefaultTimeout(8_000);
    await signIn(opened.page, server.url, who.email, who.password);
    await opened.page.waitForURL((u) => !u.pathname.endsWith('/login'));
    return opened.page;
  }

  /** A draft of `item` by the editor, submitted: the id of the version and of the instance it started. */
  async function submitted(item: number, delta: Record<string, unknown>, version?: string): Promise<{ version: string; instance: string }> {
    const v = version ?? await api(server, 'POST', '/versions', { key: `v-${Math.random().toString(36).slice(2, 8)}`, name: 'Spring copy', collection: 'articles', item: String(item), delta }, PEOPLE.ed.token);
    await api(server, 'POST', `/versions/${v}/submit`, undefined, PEOPLE.ed.token);
    const [task] = (await api(server, 'GET', '/workflow-tasks/all')).filter((t: any) => t.version_id === v);
    return { version: v, instance: task.instance_id };
  }

  const versionStatus = async (v: string) => (await api(server, 'GET', `/versions/${v}?fields=status`)).status as string;
  const decision = (page: Page) => page.getByRole('region', { name: 'Review status' });
  const openTasks = async (page: Page) => {
    await page.goto(`${server.url}/admin/review/tasks`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  };

  let first: { version: string; instance: string };

  it('shows an empty inbox calmly, then the badge and the task once a draft is submitted', async () => {
    await openTasks(rita);
    await rita.getByRole('heading', { name: 'Nothing is waiting for you' }).waitFor();
    expect(await rita.getByRole('heading', { level: 1 }).textContent()).toBe('Your tasks');
    await checkScreen(rita, 'review-tasks-empty');

    first = await submitted(items.harbour, { title: 'Harbour lights at dawn' });
    await openTasks(rita);
    // The badge on the module bar and on the section.
    await rita.getByRole('link', { name: /Review.*1 task waiting/ }).waitFor();
    await rita.getByRole('navigation', { name: 'Review' }).getByRole('link', { name: /Your tasks\s*1 waiting/ }).waitFor();
    const row = rita.getByRole('row').filter({ hasText: 'Harbour lights' });
    await row.waitFor();
    await row.getByText('Editorial review').waitFor();
    await row.getByText('Copy review').waitFor();
    await row.getByText('Articles · “Spring copy”').waitFor();
    await row.getByText(/^in 2 days$/).waitFor();
    await rita.getByText('One task waits for you, the oldest first.').waitFor();
    await checkScreen(rita, 'review-tasks');
    expect(problems.flat()).toEqual([]);
  });

  it('opens the task: the changes, the decisions on the step, the history with names', async () => {
    await rita.getByRole('link', { name: 'Harbour lights' }).click();
    await rita.waitForURL(new RegExp(`/admin/review/instances/${first.instance}$`));
    await rita.getByRole('heading', { level: 1, name: 'Harbour lights' }).waitFor();
    await rita.getByRole('region', { name: 'Changes' }).getByText(/Draft “Spring copy”\s*In review\s*compared with the item/).waitFor();
    const history = rita.getByRole('region', { name: 'History' });
    await history.getByText('Ed Editor', { exact: true }).waitFor();
    await history.getByText('Copy review').waitFor();
    await history.getByRole('definition').filter({ hasText: /^you$/ }).waitFor(); // assigned to the signed-in reviewer
    await decision(rita).getByText(/Copy review waits for your decision\. Reached just now\. One approval decides\. Times out in 2 days, then it goes to someone else\./).waitFor();
    for (const name of ['Approve…', 'Reject…', 'Delegate…', 'Comment…']) await decision(rita).getByRole('button', { name }).waitFor();
    expect(await rita.getByRole('button', { name: 'Cancel review…' }).count()).toBe(0);
    await checkScreen(rita, 'review-instance');
  });

  it('asks for a comment before rejecting, then rejects: the draft goes back to its author', async () => {
    await decision(rita).getByRole('button', { name: 'Reject…' }).click();
    const d = rita.getByRole('dialog', { name: 'Reject: Harbour lights' });
    await d.getByText(/A comment is required/).waitFor();
    await d.getByRole('button', { name: 'Reject', exact: true }).click();
    await d.getByText('Write why you reject it: the author needs to know what to change.').waitFor();
    const comment = d.getByLabel('Why it is rejected (required)');
    expect(await comment.getAttribute('aria-invalid')).toBe('true');
    expect(await comment.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await versionStatus(first.version)).toBe('pending');
    await checkScreen(rita, 'review-reject-dialog');

    await comment.fill('The headline is too long for the front page.');
    await d.getByRole('button', { name: 'Reject', exact: true }).click();
    await rita.getByRole('status').filter({ hasText: 'You rejected the draft.' }).waitFor();
    expect(await d.count()).toBe(0);
    expect(await versionStatus(first.version)).toBe('rejected');
    expect((await api(server, 'GET', `/items/articles/${items.harbour}?fields=title`)).title).toBe('Harbour lights');
    await rita.getByText('Review status: Rejected').waitFor();
    expect(await decision(rita).getByRole('button').count()).toBe(0);
    const history = rita.getByRole('region', { name: 'History' });
    await history.getByText('The headline is too long for the front page.').waitFor();
    // The badge follows: nothing waits any more.
    await expect.poll(() => rita.getByRole('link', { name: /task waiting/ }).count()).toBe(0);
  });

  it('after the editor resubmits, approving applies the draft to the item', async () => {
    const again = await submitted(items.harbour, {}, first.version);
    await openTasks(rita);
    await rita.getByRole('link', { name: 'Harbour lights' }).click();
    await rita.waitForURL(new RegExp(`/admin/review/instances/${again.instance}$`));
    await decision(rita).getByRole('button', { name: 'Approve…' }).click();
    const d = rita.getByRole('dialog', { name: 'Approve: Harbour lights' });
    await d.getByLabel('Comment (optional)').fill('Much better, thank you.');
    await checkScreen(rita, 'review-approve-dialog');
    await d.getByRole('button', { name: 'Approve', exact: true }).click();
    await rita.getByRole('status').filter({ hasText: 'The review is complete and the draft was applied to the item.' }).waitFor();
    expect((await api(server, 'GET', `/items/articles/${items.harbour}?fields=title`)).title).toBe('Harbour lights at dawn');
    expect(await versionStatus(first.version)).toBe('approved');
    await decision(rita).getByText(/Approved: “Spring copy” was applied to the item/).waitFor();
    await rita.getByRole('region', { name: 'History' }).getByText('Much better, thank you.').waitFor();
    await checkScreen(rita, 'review-instance-approved');
  });

  let third: { version: string; instance: string };

  it('adds a comment, then delegates the task to the second reviewer, who sees it', async () => {
    third = await submitted(items.tides, { title: 'Tide tables for June' });
    await rita.goto(`${server.url}/admin/review/instances/${third.instance}`);
    await decision(rita).getByRole('button', { name: 'Comment…' }).click();
    let d = rita.getByRole('dialog', { name: 'Comment: Tide tables' });
    await d.getByRole('button', { name: 'Add comment' }).click();
    await d.getByText('Write a comment first.').waitFor();
    await d.getByLabel('Comment (required)').fill('Sam knows the tides better than I do.');
    await checkScreen(rita, 'review-comment-dialog');
    await d.getByRole('button', { name: 'Add comment' }).click();
    await rita.getByRole('status').filter({ hasText: 'Your comment was added to the history.' }).waitFor();
    await rita.getByRole('region', { name: 'History' }).getByText('Sam knows the tides better than I do.').waitFor();

    await decision(rita).getByRole('button', { name: 'Delegate…' }).click();
    d = rita.getByRole('dialog', { name: 'Delegate: Tide tables' });
    await d.getByRole('button', { name: 'Delegate', exact: true }).click();
    await d.getByText('Choose who takes over this task.').waitFor();
    await d.getByLabel('Find a person').fill('sam');
    await d.getByRole('radio', { name: /Sam Second/ }).check();
    // The reviewer herself is not offered.
    expect(await d.getByRole('radio', { name: /Rita Reviewer/ }).count()).toBe(0);
    await d.getByLabel('Comment (optional)').fill('Over to you.');
    await checkScreen(rita, 'review-delegate-dialog');
    await d.getByRole('button', { name: 'Delegate', exact: true }).click();
    await rita.getByRole('status').filter({ hasText: 'The task is now with Sam Second; it left your tasks.' }).waitFor();
    await decision(rita).getByText(/Copy review waits for Sam Second\. Reached/).waitFor();
    expect(await decision(rita).getByRole('button').count()).toBe(0);
    await rita.getByRole('region', { name: 'History' }).getByText('Over to you.').waitFor();

    const sam = await signedIn(PEOPLE.sam);
    await openTasks(sam);
    await sam.getByRole('link', { name: /Review.*1 task waiting/ }).waitFor();
    await sam.getByRole('link', { name: 'Tide tables' }).click();
    await decision(sam).getByRole('button', { name: 'Approve…' }).waitFor();
    const samHistory = sam.getByRole('region', { name: 'History' });
    await samHistory.getByText(/Rita Reviewer\s*delegated the task\s*to\s*you/).waitFor();

    // Meanwhile Sam hands it back through the API: his open page is stale, and the API's refusal shows in the dialog.
    const step = (await api(server, 'GET', '/workflow-tasks', undefined, PEOPLE.sam.token)).find((t: any) => t.instance_id === third.instance).id;
    await api(server, 'POST', `/workflow-instances/${third.instance}/steps/${step}/delegate`, { to_user: ids.rita, comment: 'Back to you after all.' }, PEOPLE.sam.token);
    await decision(sam).getByRole('button', { name: 'Approve…' }).click();
    const stale = sam.getByRole('dialog', { name: 'Approve: Tide tables' });
    await stale.getByRole('button', { name: 'Approve', exact: true }).click();
    await stale.getByRole('alert').filter({ hasText: 'You are not an assignee of this step.' }).waitFor();
    await stale.getByRole('button', { name: 'Cancel' }).click();

    // Now a non-assignee: the page caught up; no action is offered, the state says who it waits for.
    await decision(sam).getByText(/Copy review waits for Rita Reviewer\. Reached/).waitFor();
    expect(await decision(sam).getByRole('button').count()).toBe(0);
    await checkScreen(sam, 'review-instance-not-assigned');
    expect(problems.flat()).toEqual([]);
  });

  it('lets an admin see every reviewer\'s tasks and cancel a review; the reviewer\'s stale page shows the refusal', async () => {
    await rita.reload();
    await decision(rita).getByRole('button', { name: 'Approve…' }).waitFor();

    const admin = await signedIn({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await openTasks(admin);
    expect(await admin.getByRole('heading', { level: 1 }).textContent()).toBe('Your tasks');
    await admin.getByRole('heading', { name: 'Nothing is waiting for you' }).waitFor();
    await admin.getByRole('group', { name: 'Whose tasks' }).getByRole('button', { name: 'All reviewers' }).click();
    await admin.waitForURL(/\/admin\/review\/tasks\?view=all$/);
    const row = admin.getByRole('row').filter({ hasText: 'Tide tables' });
    await row.getByRole('cell', { name: 'Rita Reviewer' }).waitFor();
    await checkScreen(admin, 'review-tasks-all');

    await row.getByRole('link', { name: 'Tide tables' }).click();
    await decision(admin).getByRole('button', { name: 'Comment…' }).waitFor();
    expect(await decision(admin).getByRole('button', { name: 'Approve…' }).count()).toBe(0);
    await decision(admin).getByRole('button', { name: 'Cancel review…' }).click();
    const d = admin.getByRole('dialog', { name: 'Cancel this review?' });
    await d.getByLabel('Comment (optional)').fill('The June tables are not final yet.');
    await checkScreen(admin, 'review-cancel-dialog');
    await d.getByRole('button', { name: 'Cancel review' }).click();
    await admin.getByRole('status').filter({ hasText: /The review is cancelled\. “Spring copy” is a draft again/ }).waitFor();
    expect(await versionStatus(third.version)).toBe('draft');
    expect((await api(server, 'GET', `/workflow-instances/${third.instance}`)).status).toBe('cancelled');
    await admin.getByRole('region', { name: 'History' }).getByText('The June tables are not final yet.').waitFor();
    await admin.getByText('Review status: Cancelled').waitFor();

    // Rita's page still offers the decision; the API refuses it (400) and says why, in the dialog.
    await decision(rita).getByRole('button', { name: 'Approve…' }).click();
    const stale = rita.getByRole('dialog', { name: 'Approve: Tide tables' });
    await stale.getByRole('button', { name: 'Approve', exact: true }).click();
    await stale.getByRole('alert').filter({ hasText: 'The workflow instance is cancelled.' }).waitFor();
    // The dialog keeps the answer; behind it the page catches up with the review.
    await rita.getByText('Review status: Cancelled').waitFor();
    await checkScreen(rita, 'review-approve-refused');
    await stale.getByRole('button', { name: 'Cancel' }).click();
    expect(await decision(rita).getByRole('button').count()).toBe(0);
    await decision(rita).getByText(/Cancelled: “Spring copy” went back to its author as a draft/).waitFor();
    expect(problems.flat()).toEqual([]);
  });
});
