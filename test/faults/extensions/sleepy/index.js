// Fault-suite endpoint: GET /sleepy?ms=1500&bytes=200000 answers after `ms` with a JSON body of about `bytes`
// (a slow in-flight request for the drain test, a large answer for the client that never reads).
export default {
  id: 'sleepy',
  handler: (router) => {
    router.get('/', async (c) => {
      const ms = Number(c.req.query('ms') ?? 0);
      const bytes = Number(c.req.query('bytes') ?? 100);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return c.json({ data: { slept: ms, filler: 'x'.repeat(bytes) } });
    });
  },
};
