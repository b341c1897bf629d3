#!/usr/bin/python3
"""The KWin focus test's D-Bus service: what edgeswipe-session will export for packaging/kwin/edgeswipe-focus.js.

On the session bus (DBUS_SESSION_BUS_ADDRESS), it serves /org/edgeswipe/Session, interface org.edgeswipe.Focus1,
method Activated(s resource_class, s desktop_file) -> (), and admits a call only from the connection that owns
org.kde.KWin (asked of the bus at each call, so a KWin that restarted is still admitted); any other caller gets
org.freedesktop.DBus.Error.AccessDenied. docs/COMPOSITORS.md describes the method.

Output, one line each, flushed:
  name UNIQUE-NAME                     its own unique name (the script is written with it), once, first
  activated CLASS|DESKTOP-FILE         a call admitted (from KWin's connection)
  refused SENDER                       a call from anyone else
Debian's python3-dbus and python3-gi (hence /usr/bin/python3).
"""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.edgeswipe.Focus1"
PATH = "/org/edgeswipe/Session"


class Focus(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.bus = bus

    @dbus.service.method(INTERFACE, in_signature="ss", out_signature="", sender_keyword="sender")
    def Activated(self, resource_class, desktop_file, sender=None):
        try:
            kwin = self.bus.get_name_owner("org.kde.KWin")
        except dbus.DBusException:
            kwin = None
        if sender != kwin:
            print(f"refused {sender}", flush=True)
            raise dbus.exceptions.DBusException("only KWin may report the active window",
                                                name="org.freedesktop.DBus.Error.AccessDenied")
        print(f"activated {resource_class}|{desktop_file}", flush=True)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    Focus(bus)
    print(f"name {bus.get_unique_name()}", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())
