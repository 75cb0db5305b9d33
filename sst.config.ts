// Types: .sst/platform/config.d.ts after `sst install`; offline, infra/sst-globals.d.ts declares the subset used.

/** `npx sst deploy --stage <name>`: the split topology on AWS (see infra/index.ts and docs/deployment.md > Deploy).
 * SST evaluates this file itself: no top-level imports; infra/ is imported inside run(). */
export default $config({
  app(input) {
    return {
      name: 'svc',
      home: 'aws',
      removal: input.stage === 'production' ? 'retain' : 'remove',
      protect: input.stage === 'production',
      // Same rule as infra/settings.ts region() (the container's AWS_REGION).
      providers: { aws: { region: process.env.SVC_AWS_REGION || process.env.AWS_REGION || 'us-east-1' } },
    };
  },
  async run() {
    const { deploy } = await import('./infra/index.ts');
    return deploy();
  },
});
