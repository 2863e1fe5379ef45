import React from 'react';
import ComponentCreator from '@docusaurus/core/lib/client/exports/ComponentCreator.js';

// The generated route table calls ComponentCreator for every route (over 200 here) while
// main.js is evaluated, and each call builds a react-loadable component: the biggest part of
// that first long task. A page needs only its own route's loader, so each route gets a
// stand-in whose loader is built on first use: when the route is preloaded (first load, a link
// hovered, a navigation) or rendered. Route prefetching reads the chunk table directly and
// does not go through here. See plugins/lazyRouteComponents.ts.
type Loadable = ReturnType<typeof ComponentCreator>;

export default function lazyComponentCreator(path: string, hash: string): Loadable {
  let loadable: Loadable | undefined;
  const get = (): Loadable => (loadable ??= ComponentCreator(path, hash));
  function RouteComponent(props: object): React.ReactNode {
    const Component = get();
    return <Component {...props} />;
  }
  RouteComponent.preload = () => get().preload();
  return RouteComponent as unknown as Loadable;
}
