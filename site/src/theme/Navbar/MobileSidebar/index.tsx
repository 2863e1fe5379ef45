import React, { useDeferredValue } from 'react';
import { useLockBodyScroll, useNavbarMobileSidebar } from '@docusaurus/theme-common/internal';
import NavbarMobileSidebarLayout from '@theme/Navbar/MobileSidebar/Layout';
import NavbarMobileSidebarHeader from '@theme/Navbar/MobileSidebar/Header';
import NavbarMobileSidebarPrimaryMenu from '@theme/Navbar/MobileSidebar/PrimaryMenu';
import NavbarMobileSidebarSecondaryMenu from '@theme/Navbar/MobileSidebar/SecondaryMenu';

// The hidden mobile sidebar (every navbar dropdown again, as menus) is mounted as soon as the
// window is known to be narrow, which happens in the blocking render that follows hydration.
// Here it is mounted in a deferred render instead, which React splits into short slices; a tap
// on the hamburger before that mounts it at once.
export default function NavbarMobileSidebar(): React.ReactNode {
  const mobileSidebar = useNavbarMobileSidebar();
  useLockBodyScroll(mobileSidebar.shown);
  const deferredShouldRender = useDeferredValue(mobileSidebar.shouldRender);
  if (!mobileSidebar.shouldRender || !(deferredShouldRender || mobileSidebar.shown)) return null;
  return (
    <NavbarMobileSidebarLayout
      header={<NavbarMobileSidebarHeader />}
      primaryMenu={<NavbarMobileSidebarPrimaryMenu />}
      secondaryMenu={<NavbarMobileSidebarSecondaryMenu />}
    />
  );
}
