// Stand-in for the `nprogress` package used by the classic theme; see plugins/progressBarShim.ts.
const noop = () => noopProgress;
const noopProgress = { configure: noop, start: noop, done: noop, set: noop, inc: noop };
export default noopProgress;
