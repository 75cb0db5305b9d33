// Types: .sst/platform/config.d.ts after `sst install`; offline, infra/sst-globals.d.ts declares the subset used.

/** `npx sst deploy --stage <name>`: the split topology on AWS (see infra/index.ts and README.md > Deploy). */
export default $config({
  app(input) {
    return {
      name: 'svc',
      home: 'aws',
      removal: input.stage === 'production' ? 'retain' : 'remove',
      protect: input.stage === 'production',
    };
  },
  async run() {
    const { deploy } = await import('./infra/index.ts');
    return deploy();
  },
});
