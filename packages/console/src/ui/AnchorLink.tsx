/** A Mantine anchor that navigates with the router, keeping the routes' typed params and search. */
import { Anchor, type AnchorProps } from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';
import { forwardRef, type AnchorHTMLAttributes } from 'react';

const MantineAnchor = forwardRef<HTMLAnchorElement, AnchorProps & AnchorHTMLAttributes<HTMLAnchorElement>>((props, ref) => <Anchor ref={ref} {...props} />);
const RoutedAnchor = createLink(MantineAnchor);

export const AnchorLink: LinkComponent<typeof MantineAnchor> = (props) => <RoutedAnchor preload="intent" {...props} />;
