import React from 'react';
import NavbarItem from '@theme-original/NavbarItem';

// Right after hydration on a narrow screen the mobile-sidebar context changes (the window size
// becomes known), which re-renders the whole navbar content in one blocking render. Navbar
// items take their props straight from the config, so memoizing them skips re-rendering every
// dropdown there; they still follow route changes through the router context they read.
export default React.memo(NavbarItem);
