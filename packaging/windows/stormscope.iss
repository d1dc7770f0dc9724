; The Windows installer (Inno Setup 6): the one-folder build (dist\StormScope) installed with a Start menu entry,
; StormScope as the program of StormScope workspaces (.duckdb), and an uninstaller (Settings > Apps, or the Start
; menu). Built by .github/workflows/dist.yml after the build's smoke test:
;
;   iscc /DAppVersion=0.1.0 /DSourceDir=C:\...\dist\StormScope /DOutputDir=C:\...\dist /DIconFile=C:\...\stormscope.ico
;        packaging\windows\stormscope.iss        (absolute paths: a relative one is read from this folder)
;
; -> dist\StormScope-0.1.0-windows-x64-setup.exe. Installs for the current user by default (no administrator
; rights: %LOCALAPPDATA%\Programs\StormScope), or for all users when chosen in the first dialog
; (C:\Program Files\StormScope). The workflow installs it silently, runs packaging/smoke_test.py on what it installed,
; checks the Start menu entry and the association in the registry, uninstalls and checks everything is gone
; (packaging/windows/installer_check.py). tests/test_packaging_installers.py checks this file's entries.
; Uninstalling removes what was installed; the user's workspaces, settings and logs are theirs and stay.

#ifndef AppVersion
  #error Give the version: iscc /DAppVersion=X.Y.Z (the workflow reads it from pyproject.toml)
#endif
#ifndef SourceDir
  #define SourceDir "..\..\dist\StormScope"
#endif
#ifndef OutputDir
  #define OutputDir "..\..\dist"
#endif
#ifndef IconFile
  ; made from app\ui\icons\stormscope.png by the workflow (Pillow), as PyInstaller makes the programs' icon
  #define IconFile "..\..\build\stormscope.ico"
#endif

[Setup]
AppId={{6F1C2B7E-3D54-4B8A-9E0F-5A7C1D2E3B41}
AppName=StormScope
AppVersion={#AppVersion}
AppVerName=StormScope {#AppVersion}
AppPublisher=The StormScope authors
DefaultDirName={autopf}\StormScope
DefaultGroupName=StormScope
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
ChangesAssociations=yes
UninstallDisplayIcon={app}\StormScope.exe
UninstallDisplayName=StormScope {#AppVersion}
OutputDir={#OutputDir}
OutputBaseFilename=StormScope-{#AppVersion}-windows-x64-setup
SetupIconFile={#IconFile}
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
LicenseFile=..\..\LICENSE

[Tasks]
Name: "desktopicon"; Description: "Create a &desktop shortcut"; GroupDescription: "Shortcuts:"; Flags: unchecked
Name: "associate"; Description: "Open StormScope &workspaces (.duckdb) with StormScope"; GroupDescription: "Files:"

[Files]
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\StormScope"; Filename: "{app}\StormScope.exe"; Comment: "Storage-performance trace analysis"
Name: "{autodesktop}\StormScope"; Filename: "{app}\StormScope.exe"; Tasks: desktopicon

[Registry]
; the workspace type (a ProgID), its icon and how it opens: StormScope.exe PATH.duckdb opens PATH as the workspace
Root: HKA; Subkey: "Software\Classes\StormScope.Workspace"; ValueType: string; ValueName: ""; ValueData: "StormScope workspace"; Flags: uninsdeletekey
Root: HKA; Subkey: "Software\Classes\StormScope.Workspace\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\StormScope.exe,0"
Root: HKA; Subkey: "Software\Classes\StormScope.Workspace\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\StormScope.exe"" ""%1"""
; .duckdb: offered in "Open with" always; the default program when the task is ticked (the value is removed on
; uninstall only while it still names StormScope)
Root: HKA; Subkey: "Software\Classes\.duckdb\OpenWithProgids"; ValueType: string; ValueName: "StormScope.Workspace"; ValueData: ""; Flags: uninsdeletevalue
Root: HKA; Subkey: "Software\Classes\.duckdb"; ValueType: string; ValueName: ""; ValueData: "StormScope.Workspace"; Flags: uninsdeletevalue; Tasks: associate
Root: HKA; Subkey: "Software\Classes\Applications\StormScope.exe\SupportedTypes"; ValueType: string; ValueName: ".duckdb"; ValueData: ""; Flags: uninsdeletekey

[Run]
Filename: "{app}\StormScope.exe"; Description: "Start StormScope"; Flags: nowait postinstall skipifsilent
