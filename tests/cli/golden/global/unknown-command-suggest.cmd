# issue 20 item 12: a misspelt command gets the closest commands by edit
# distance (git's "The most similar command is"), a command cut short the
# commands it begins; a word close to none gets no suggestion.
tshape siz '(2,3)'; echo "exit $?"
tshape flat '(2,3)'
tshape convrt a b
tshape xyzzy
