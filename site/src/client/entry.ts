// The client bundle's entry point, in place of Docusaurus's clientEntry (see
// plugins/splitStartup.ts). Evaluating main.js ran every module of the app in one task, which
// a phone's CPU turns into a long task that blocks input. The same modules are evaluated here
// in a few groups, the browser getting the main thread back between them; the last group is
// Docusaurus's own entry, which preloads the route and hydrates as before.
const nextTask = (): Promise<void> =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });

async function start(): Promise<void> {
  // This task already compiled main.js; the modules run from the next one on.
  await nextTask();
  // "eager": no separate chunk; the module is in main.js and runs when it is imported here.
  await import(/* webpackMode: "eager" */ 'react-dom/client');
  await nextTask();
  await import(/* webpackMode: "eager" */ '@generated/routes');
  await nextTask();
  await Promise.all([
    import(/* webpackMode: "eager" */ 'react-helmet-async'),
    import(/* webpackMode: "eager" */ 'react-router-dom'),
  ]);
  await nextTask();
  await import(/* webpackMode: "eager" */ '@generated/client-modules');
  await nextTask();
  await import(/* webpackMode: "eager" */ '@docusaurus/core/lib/client/App.js');
  await nextTask();
  await import(/* webpackMode: "eager" */ '@docusaurus/core/lib/client/clientEntry.js');
}

void start();
